// The trial's warnings (src/workspaces/trial-sweep.ts): a sweep soon after start and then hourly
// (the daemon's `trial` tick). Every daemon sweeps; each warning is sent and recorded once.
import type { Service } from '../../src/service.js';
import type { Worker } from './domain-recheck.js';

export function trialWorker(service: Service): Worker & { tick(): void } {
  const { log } = service.deps;
  let running: Promise<void> | null = null;
  const runOnce = async () => void (await service.trialSweep());
  const tick = () => {
    running ??= runOnce()
      .catch((e: Error) => log.warn(`trial: ${e.message}`))
      .finally(() => (running = null));
  };
  const first = setTimeout(tick, 10_000);
  first.unref();
  return {
    name: 'trial',
    runOnce,
    tick,
    async stop() {
      clearTimeout(first);
      await running;
    },
  };
}
