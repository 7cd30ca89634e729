// The trial's warnings and the deletion of workspaces (src/people/trial-warnings.ts, src/workspaces/deletion.ts):
// a sweep soon after start and then hourly (the daemon's `trial` tick), and at once when a
// workspace was deleted (the bus's `deleted`, from this daemon or another). Every daemon sweeps;
// each warning is sent and recorded once, and each deletion is worked on by one daemon at a time.
import type { Service } from '../../src/service.js';
import type { Worker } from './domain-recheck.js';

export function trialWorker(service: Service): Worker & { tick(): void } {
  const { log } = service.deps;
  let running: Promise<void> | null = null;
  let again = false;
  let stopping = false;
  const runOnce = async () => void (await service.trialSweep(() => stopping));
  const tick = () => {
    if (running) {
      again = true;
      return;
    }
    running = runOnce()
      .catch((e: Error) => log.warn(`trial: ${e.message}`))
      .finally(() => {
        running = null;
        if (again && !stopping) {
          again = false;
          tick();
        }
      });
  };
  const first = setTimeout(tick, 10_000);
  first.unref();
  const unsubscribe = service.bus.subscribe('deleted', tick);
  return {
    name: 'trial',
    runOnce,
    tick,
    async stop() {
      stopping = true;
      unsubscribe();
      clearTimeout(first);
      await running;
    },
  };
}
