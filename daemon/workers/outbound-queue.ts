// daemon/workers/: the daemon's background work: leased queues on one runner (runner.ts), timers.
//
// The delivery worker: the leased-queue runner (runner.ts) over the outbound queue. It claims due
// jobs (with a lease, so a crash never loses one: another worker takes it when the lease ends) and
// hands them off, up to the configured concurrency at once. Woken on the bus when a send queues
// jobs; otherwise it polls.
import { hostname } from 'node:os';
import type { Service } from '../../src/service.js';
import { HandOff } from '../../src/send/hand-off.js';
import { ComposePool } from '../../src/send/compose-pool.js';
import { deliveryService } from '../../src/send/outbound-job.js';
import { DEFAULT_RETRY } from '../../src/send/outcome.js';
import { DestinationBackoff, SMARTHOST } from '../../src/send/backoff.js';
import { dnsClient } from '../../src/domains/dns.js';
import type { OutboundJob } from '../../src/model/message.js';
import { leasedRunner, type QueueWorker } from './runner.js';

/**
 * A job whose worker vanished is taken by another after this long. A live worker renews the leases
 * of its jobs in flight every third of it (a heartbeat), however long a hand-off takes, so a
 * crashed daemon's jobs come back within about 30 s instead of waiting out a long fixed lease.
 */
export const LEASE_MS = 30_000;
/** How long a stop waits for hand-offs in flight before it abandons them (composing and SMTP). */
export const SHUTDOWN_GRACE_MS = 5_000;
const IDLE_POLL_MS = 100;
/**
 * SMTP connections open at once to one host: Postfix's default_destination_concurrency_limit, which
 * it applies to a relayhost too. It was 5: through a smarthost (every message to one host) five
 * sessions' round trips capped the end-to-end bench at 363 messages/s with the cores 60 % busy;
 * with 20 it reached 633/s, the cores full (2026-11-27).
 */
export const CONNECTIONS_PER_HOST = 20;

export type DeliveryWorker = QueueWorker & {
  /** The outbound route (and its CA) from now on: SIGHUP re-read the config file. */
  reroute(outbound: string, ca: string | undefined): void;
};

export function deliveryWorker(service: Service, opts: { start: boolean; leaseMs?: number } = { start: true }): DeliveryWorker {
  const leaseMs = opts.leaseMs ?? LEASE_MS;
  const { store, clock, random, log, config } = service.deps;
  const deliverer = new HandOff({
    outbound: config.outbound,
    dns: dnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    directPort: config.directPort,
    heloName: config.heloName,
    timeoutMs: config.smtpTimeoutMs,
    maxConnectionsPerHost: CONNECTIONS_PER_HOST,
    maxRecipients: config.recipientsPerTransaction,
    ...(config.outboundCa ? { ca: config.outboundCa } : {}),
  });
  const composer = new ComposePool(config.composeThreads);
  const backoff = new DestinationBackoff(() => clock.now().getTime());
  // An operator's retry (svc queue retry) lifts the pauses of destinations that deferred, so what
  // was made due is tried at once, not after the pause. Heard before the runner's wake-up below.
  const unheard = service.bus.subscribe('retried', () => backoff.clear());
  const delivery = deliveryService(service.deps, {
    deliverer,
    composer,
    retry: { ...DEFAULT_RETRY, windowMs: config.retryWindowSeconds * 1000 },
    linkKey: service.tracking.linkKey,
    backoff,
  });
  const owner = `${hostname()}:${process.pid}:${random.bytes(4).toString('hex')}`;
  const now = () => clock.now().toISOString();
  // Bulk jobs (broadcasts, sequences) take at most a quarter of the slots: the rest stay free for
  // transactional mail, so a password reset never waits behind every slot's broadcast job (and the
  // compose threads and SMTP connections they keep busy). docs/lists-and-campaigns.md "Broadcasts and sequences".
  const bulkSlots = Math.max(1, Math.ceil(config.deliveryConcurrency / 4));
  const bulkInFlight = new Set<string>();

  const runner = leasedRunner<OutboundJob, void>(
    {
      name: 'delivery',
      concurrency: config.deliveryConcurrency,
      idlePollMs: IDLE_POLL_MS,
      wakeOn: ['queued', 'retried'],
      // Paused destinations' jobs stay queued (backoff.ts); through a paused smarthost nothing goes.
      claim: async (max) => {
        const paused = backoff.paused();
        if (paused.includes(SMARTHOST)) return [];
        const jobs = await store.queue.claim(owner, now(), leaseMs, max, paused, Math.max(0, bulkSlots - bulkInFlight.size));
        for (const j of jobs) if (j.priority) bulkInFlight.add(j.id);
        return jobs;
      },
      // A hand-off stores its own outcome (one store call per job, batched by the store).
      run: (job) =>
        delivery
          .run(job)
          .catch((e: Error) => log.error(`delivery: job ${job.id}: ${e.message}`))
          .finally(() => bulkInFlight.delete(job.id)),
      renew: { everyMs: leaseMs / 3, id: (job) => job.id, fn: (ids) => store.queue.renew(owner, ids, now(), leaseMs) },
      // Work in flight gets a grace period to finish; then composing still running is abandoned
      // (a poison message must not hold the stop up) and SMTP sessions still open are cut (a
      // server that never greets must not either). A job cut before anything went out keeps its
      // lease; one cut later records what went out and tries the rest again (src/send/outbound-job.ts).
      abandon: {
        graceMs: SHUTDOWN_GRACE_MS,
        fn: () => {
          deliverer.abort();
          return composer.close();
        },
      },
      close: async () => {
        await composer.close();
        deliverer.close();
      },
    },
    service.deps,
    opts,
  );
  const stop = runner.stop.bind(runner);
  return Object.assign(runner, {
    stop: async () => {
      unheard();
      await stop();
    },
    reroute: (outbound: string, ca: string | undefined) => deliverer.reroute(outbound, ca),
  });
}
