// The webhook worker: moves outbox events into jobs, claims due jobs (leased, so a crash never
// loses one and two daemons never send one at once), sends up to the configured number at once,
// and records finished attempts in batches (one store call for many). Woken when events are
// written; otherwise it polls.
import { hostname } from 'node:os';
import type { Service } from '../../src/service.js';
import type { AttemptRecord, WebhookEndpoint, WebhookJob } from '../../src/model/webhook.js';
import { webhookDispatcher } from '../../src/webhooks/dispatch.js';
import { resolverFor } from '../../src/webhooks/guard.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import type { Worker } from './domain-recheck.js';
import { Waker } from './waker.js';

/** Longer than any attempt (the timeout) plus recording: a job is not sent twice while in flight. */
// An attempt waits at most the webhook timeout (8 s): a minute is room enough, and what a crashed
// daemon held comes back within it.
const LEASE_MS = 60_000;
const IDLE_POLL_MS = 250;

export interface WebhookWorker extends Worker {
  poke(): void;
}

export function webhookWorker(service: Service, opts: { start: boolean } = { start: true }): WebhookWorker {
  const { store, clock, random, log, config } = service.deps;
  const sender = new WebhookSender({
    timeoutMs: config.webhookTimeoutMs,
    allowInsecure: config.allowInsecureWebhooks,
    resolve: resolverFor(config.dnsServers, config.dnsTimeoutMs),
    connections: config.webhookConcurrency,
  });
  const dispatcher = webhookDispatcher(service.deps, sender);
  const owner = `${hostname()}:${process.pid}:${random.bytes(4).toString('hex')}`;
  const inflight = new Set<Promise<void>>();
  let stopped = false;
  const waker = new Waker();
  let poked = true;
  // Jobs are claimed in batches of up to four times the concurrency and wait here for a slot: one
  // store call per batch, not one per finished attempt. Their lease (5 minutes) outlasts the wait
  // even when every attempt runs into the timeout.
  const capacity = config.webhookConcurrency * 4;
  const ready: Array<{ job: WebhookJob; endpoint: WebhookEndpoint }> = [];

  // Finished attempts wait here for the next write; while one write runs, the next batch gathers.
  let done: AttemptRecord[] = [];
  let writing: Promise<void> | null = null;
  const flush = (): Promise<void> => {
    if (writing) return writing;
    const batch = done;
    done = [];
    if (!batch.length) return Promise.resolve();
    writing = store.webhooks
      .record(batch)
      .catch((e: Error) => log.error(`webhooks: cannot record ${batch.length} attempts: ${e.message} (they are sent again when their lease ends)`))
      .finally(() => {
        writing = null;
        if (done.length) void flush();
      });
    return writing;
  };

  const settle = async () => {
    while (writing || done.length) await flush();
  };

  const start = (job: WebhookJob, endpoint: WebhookEndpoint) => {
    const p = dispatcher
      .attempt(job, endpoint)
      .then((rec) => {
        done.push(rec);
        void flush();
      })
      .catch((e: Error) => log.error(`webhooks: job ${job.id}: ${e.message}`))
      .finally(() => {
        inflight.delete(p);
        fill();
        waker.wake();
      });
    inflight.add(p);
  };

  const fill = () => {
    while (inflight.size < config.webhookConcurrency && ready.length) {
      const next = ready.shift()!;
      start(next.job, next.endpoint);
    }
  };

  const pass = async (): Promise<number> => {
    if (poked) {
      poked = false;
      await dispatcher.fanOut();
    }
    const room = capacity - inflight.size - ready.length;
    // A batch at a time (unless idle), claimed before the slots run dry.
    if (room < config.webhookConcurrency && inflight.size + ready.length > 0) return 0;
    const claimed = await store.webhooks.claim(owner, clock.now().toISOString(), LEASE_MS, room);
    ready.push(...claimed);
    fill();
    return claimed.length;
  };

  const loop = async () => {
    let lastPoll = 0;
    while (!stopped) {
      let claimed = 0;
      try {
        // Events from other daemons (and retries) are found by polling.
        if (Date.now() - lastPoll >= IDLE_POLL_MS) {
          poked = true;
          lastPoll = Date.now();
        }
        claimed = await pass();
      } catch (e) {
        log.warn(`webhooks: ${(e as Error).message}`);
      }
      if (stopped) break;
      // Woken while busy: go again now rather than at the next poll.
      if (poked) continue;
      if (claimed > 0 && capacity - inflight.size - ready.length >= config.webhookConcurrency) continue;
      await waker.sleep(IDLE_POLL_MS);
    }
  };
  const running = opts.start ? loop() : Promise.resolve();

  return {
    name: 'webhooks',
    poke: () => {
      poked = true;
      waker.wake();
    },
    /** Fans out and sends everything due now, and records it (tests move the clock, then call this). */
    async runOnce() {
      poked = true;
      while ((await pass()) > 0) while (inflight.size) await Promise.all(inflight);
      while (inflight.size) await Promise.all(inflight);
      await settle();
    },
    async stop() {
      stopped = true;
      waker.wake();
      await running;
      // Attempts in flight finish (within the timeout) and are recorded; claimed jobs not started
      // keep their leases and are sent when those end (after a restart, within 5 minutes).
      ready.length = 0;
      while (inflight.size) await Promise.all(inflight);
      await settle();
      await sender.close();
    },
  };
}
