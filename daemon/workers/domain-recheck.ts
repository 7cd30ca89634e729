// The daemon's periodic re-check of every domain's records: statuses are recorded over
// time, so a record that disappears shows up in `svc domains show` with the change. A verified
// domain whose DKIM record broke is sent unsigned, and named in a `dkim` fault (/healthz) until
// every such record is fixed.
import type { Service } from '../../src/service.js';
import type { Log } from '../../src/log.js';
import { damagedKeyDetail, unsignedDetail } from '../../src/send/dkim.js';

export interface Worker {
  name: string;
  /** One pass now (tests and benchmarks call it directly). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

export function domainRecheck(service: Service, intervalSeconds: number, log: Log): Worker {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  const runOnce = async () => {
    const t0 = Date.now();
    const r = await service.domains.recheckAll();
    if (r.checked || r.failed)
      log.info(`domain re-check: ${r.checked} checked, ${r.passed} passing, ${r.failed} failed in ${Date.now() - t0} ms`);
    if (r.unsigned.length) service.faults.raise('dkim', unsignedDetail(r.unsigned));
    else service.faults.clear('dkim');
    if (r.damaged.length) service.faults.raise('dkim_key', damagedKeyDetail(r.damaged));
    else service.faults.clear('dkim_key');
  };
  const schedule = () => {
    if (stopped || intervalSeconds === 0) return;
    timer = setTimeout(() => {
      running = runOnce()
        .catch((e: Error) => log.warn(`domain re-check failed: ${e.message}`))
        .finally(() => {
          running = null;
          schedule();
        });
    }, intervalSeconds * 1000);
    timer.unref();
  };
  schedule();

  return {
    name: 'domain-recheck',
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
