// Removes messages and webhook delivery log rows older than --retention-days (default 30),
// received inbox items older than --inbox-retention-days (default 365) and Idempotency-Key claims
// past their 24 hours, and gives back the disk space of deleted inbox items (store.inbox.compact),
// soon after start and then hourly (the daemon's `retention` tick).
import type { Service } from '../../src/service.js';
import type { Worker } from './domain-recheck.js';
import { IDEMPOTENCY_TTL_MS } from '../../src/send/idempotent.js';

export function retentionWorker(service: Service): Worker & { tick(): void } {
  const { config, clock, log } = service.deps;
  let running: Promise<void> | null = null;
  /** The moment `ms` before now, as the stores take it. */
  const ago = (ms: number) => new Date(clock.now().getTime() - ms).toISOString();
  const runOnce = async () => {
    const removed = await service.messages.purgeOlderThan(config.retentionDays, clock.now());
    if (removed) log.info(`retention: removed ${removed} messages older than ${config.retentionDays} days`);
    const attempts = await service.store.webhooks.purge(ago(config.retentionDays * 86_400_000));
    if (attempts) log.info(`retention: removed ${attempts} webhook delivery log rows older than ${config.retentionDays} days`);
    const received = await service.store.inbox.purge(ago(config.inboxRetentionDays * 86_400_000));
    if (received) log.info(`retention: removed ${received} inbox items older than ${config.inboxRetentionDays} days`);
    const freed = await service.store.inbox.compact();
    if (freed) log.info(`retention: compacted the inbox journal, ${(freed / 1048576).toFixed(1)} MB of deleted items freed`);
    const keys = await service.store.idempotency.purge(ago(IDEMPOTENCY_TTL_MS));
    if (keys) log.info(`retention: forgot ${keys} Idempotency-Keys older than ${IDEMPOTENCY_TTL_MS / 3600_000} hours`);
  };
  const tick = () => {
    running ??= runOnce()
      .catch((e: Error) => log.warn(`retention: ${e.message}`))
      .finally(() => (running = null));
  };
  // Once soon after start (a file store reads back days kept for the monthly quota), then hourly
  // from the daemon's ticks (ticks.ts).
  const first = setTimeout(tick, 5_000);
  first.unref();
  return {
    name: 'retention',
    runOnce,
    /** The hourly tick: a pass, unless one is still running. */
    tick,
    async stop() {
      clearTimeout(first);
      await running;
    },
  };
}
