// Removes messages older than --retention-days (default 30), once an hour.
import type { Service } from '../../src/service.js';
import type { Worker } from './domain-recheck.js';

export function retentionWorker(service: Service): Worker {
  const { config, clock, log } = service.deps;
  let running: Promise<void> | null = null;
  const runOnce = async () => {
    const removed = await service.messages.purgeOlderThan(config.retentionDays, clock.now());
    if (removed) log.info(`retention: removed ${removed} messages older than ${config.retentionDays} days`);
  };
  const timer = setInterval(() => {
    running ??= runOnce()
      .catch((e: Error) => log.warn(`retention: ${e.message}`))
      .finally(() => (running = null));
  }, 3600_000);
  timer.unref();
  return {
    name: 'retention',
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
