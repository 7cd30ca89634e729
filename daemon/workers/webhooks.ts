// The webhook worker: the leased-queue runner (runner.ts) over webhook jobs. It moves outbox events
// into jobs, claims due jobs (leased, so a crash never loses one and two daemons never send one at
// once), sends up to the configured number at once, and records finished attempts in batches (one
// store call for many). Woken on the bus when events are written; otherwise it polls.
import { hostname } from 'node:os';
import type { Service } from '../../src/service.js';
import type { AttemptRecord, WebhookEndpoint, WebhookJob } from '../../src/model/webhook.js';
import { webhookDispatcher } from '../../src/webhooks/dispatch.js';
import { resolverFor } from '../../src/webhooks/guard.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { leasedRunner, type QueueWorker } from './runner.js';

/** Longer than any attempt (the timeout) plus recording: a job is not sent twice while in flight. */
// An attempt waits at most the webhook timeout (8 s): a minute is room enough, and what a crashed
// daemon held comes back within it.
const LEASE_MS = 60_000;
const IDLE_POLL_MS = 250;

export type WebhookWorker = QueueWorker;

export function webhookWorker(service: Service, opts: { start: boolean } = { start: true }): WebhookWorker {
  const { store, clock, random, config } = service.deps;
  const sender = new WebhookSender({
    timeoutMs: config.webhookTimeoutMs,
    allowInsecure: config.allowInsecureWebhooks,
    resolve: resolverFor(config.dnsServers, config.dnsTimeoutMs),
    connections: config.webhookConcurrency,
  });
  const dispatcher = webhookDispatcher(service.deps, sender);
  const owner = `${hostname()}:${process.pid}:${random.bytes(4).toString('hex')}`;
  type Claimed = { job: WebhookJob; endpoint: WebhookEndpoint };

  return leasedRunner<Claimed, AttemptRecord>(
    {
      name: 'webhooks',
      concurrency: config.webhookConcurrency,
      // Claimed in batches of up to four times the concurrency, waiting for a slot: one store call
      // per batch, not one per finished attempt. The lease outlasts the wait even when every
      // attempt runs into the timeout.
      prefetch: config.webhookConcurrency * 4,
      minClaim: config.webhookConcurrency,
      idlePollMs: IDLE_POLL_MS,
      wakeOn: ['outboxed'],
      // New outbox events become jobs (one per subscribed endpoint) before each claim.
      prepare: async () => void (await dispatcher.fanOut()),
      claim: (max) => store.webhooks.claim(owner, clock.now().toISOString(), LEASE_MS, max),
      run: ({ job, endpoint }) => dispatcher.attempt(job, endpoint),
      // Finished attempts are recorded many per store call; one that fails to record is sent again
      // when its lease ends.
      complete: async (records) => {
        await store.webhooks.record(records);
        service.bus.publish('attempted');
      },
      close: () => sender.close(),
    },
    service.deps,
    opts,
  );
}
