// The delivery worker: claims due jobs from the store-backed queue (with a lease, so a crash never
// loses one: another worker takes it when the lease ends) and hands them off, up to the configured
// concurrency at once. Woken at once when a send is accepted; otherwise it polls.
import { hostname } from 'node:os';
import type { Service } from '../../src/service.js';
import { Deliverer } from '../../src/send/deliver.js';
import { ComposePool } from '../../src/send/compose-pool.js';
import { deliveryService } from '../../src/send/delivery.js';
import { DEFAULT_RETRY } from '../../src/send/outcome.js';
import { dnsClient } from '../../src/domains/dns.js';
import type { Worker } from './domain-recheck.js';
import { Waker } from './waker.js';

/**
 * A job whose worker vanished is taken by another after this long. A live worker renews the leases
 * of its jobs in flight every third of it (a heartbeat), however long a hand-off takes, so a
 * crashed daemon's jobs come back within about 30 s instead of waiting out a long fixed lease.
 */
export const LEASE_MS = 30_000;
/** How long a stop waits for hand-offs in flight before it abandons their composing. */
export const SHUTDOWN_GRACE_MS = 5_000;
const IDLE_POLL_MS = 100;

export interface DeliveryWorker extends Worker {
  poke(): void;
}

export function deliveryWorker(service: Service, opts: { start: boolean; leaseMs?: number } = { start: true }): DeliveryWorker {
  const leaseMs = opts.leaseMs ?? LEASE_MS;
  const { store, clock, random, log, config } = service.deps;
  const deliverer = new Deliverer({
    outbound: config.outbound,
    dns: dnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    directPort: config.directPort,
    heloName: config.heloName,
    timeoutMs: config.smtpTimeoutMs,
    maxConnectionsPerHost: 5,
    maxRecipients: config.recipientsPerTransaction,
    ...(config.outboundCa ? { ca: config.outboundCa } : {}),
  });
  const composer = new ComposePool(config.composeThreads);
  const delivery = deliveryService(service.deps, { deliverer, composer, retry: { ...DEFAULT_RETRY, windowMs: config.retryWindowSeconds * 1000 } });
  const owner = `${hostname()}:${process.pid}:${random.bytes(4).toString('hex')}`;
  const inflight = new Set<Promise<void>>();
  const inflightIds = new Set<string>();
  let stopped = false;
  const waker = new Waker();

  const start = (job: Parameters<typeof delivery.run>[0]) => {
    const p = delivery
      .run(job)
      .catch((e: Error) => log.error(`delivery: job ${job.id}: ${e.message}`))
      .finally(() => {
        inflight.delete(p);
        inflightIds.delete(job.id);
      });
    inflight.add(p);
    inflightIds.add(job.id);
  };

  const claim = async (max: number) => store.queue.claim(owner, clock.now().toISOString(), leaseMs, max);

  const loop = async () => {
    while (!stopped) {
      const free = config.deliveryConcurrency - inflight.size;
      let claimed = 0;
      if (free > 0) {
        try {
          const jobs = await claim(free);
          claimed = jobs.length;
          for (const j of jobs) start(j);
        } catch (e) {
          log.warn(`delivery: cannot claim jobs: ${(e as Error).message}`);
        }
      }
      if (stopped) break;
      if (free <= 0) await Promise.race(inflight);
      else if (claimed === 0) {
        await waker.sleep(IDLE_POLL_MS);
      }
    }
  };
  const running = opts.start ? loop() : Promise.resolve();
  const heartbeat = setInterval(() => {
    if (!inflightIds.size) return;
    store.queue.renew(owner, [...inflightIds], clock.now().toISOString(), leaseMs).catch((e: Error) => log.warn(`delivery: cannot renew leases: ${e.message}`));
  }, leaseMs / 3);
  heartbeat.unref();

  return {
    name: 'delivery',
    poke: () => waker.wake(),
    /** Hands off everything due now and waits for it (tests move the clock, then call this). */
    async runOnce() {
      for (;;) {
        const jobs = await claim(config.deliveryConcurrency);
        if (!jobs.length) break;
        for (const j of jobs) start(j);
        await Promise.all(inflight);
      }
      await Promise.all(inflight);
    },
    async stop() {
      stopped = true;
      waker.wake();
      await running;
      // Work in flight gets a grace period to finish; then composing still running is abandoned
      // (a poison message must not hold the stop up) and those jobs keep their leases, to be
      // handed off again after the restart. Hand-offs already talking SMTP finish or time out.
      let graceTimer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(inflight), new Promise((r) => (graceTimer = setTimeout(r, SHUTDOWN_GRACE_MS)))]);
      clearTimeout(graceTimer);
      await composer.close();
      await Promise.all(inflight);
      clearInterval(heartbeat);
      deliverer.close();
    },
  };
}
