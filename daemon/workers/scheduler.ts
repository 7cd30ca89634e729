// The scheduler worker: the leased-queue runner (runner.ts) over due sequence enrolments (leased in
// the store, so two daemons never work on one at once and a crashed daemon's come back when their
// lease ends). Woken on the bus when subscribers are enrolled or steps added, and by the due-step
// tick (ticks.ts); a step due while the daemon was down is found at its first pass.
import { hostname } from 'node:os';
import type { Service } from '../../src/service.js';
import type { Enrolment } from '../../src/model/sequence.js';
import { leasedRunner, type QueueWorker } from './runner.js';

const IDLE_POLL_MS = 5_000;

export function schedulerWorker(service: Service, opts: { start: boolean } = { start: true }): QueueWorker {
  const owner = `${hostname()}:${process.pid}:${service.deps.random.bytes(4).toString('hex')}`;
  return leasedRunner<Enrolment, void>(
    {
      name: 'scheduler',
      concurrency: 4,
      prefetch: 50,
      idlePollMs: IDLE_POLL_MS,
      wakeOn: ['enrolled'],
      claim: (max) => service.scheduler.claim(owner, max),
      run: async (e) => void (await service.scheduler.run(e)),
    },
    { bus: service.bus, log: service.deps.log },
    opts,
  );
}
