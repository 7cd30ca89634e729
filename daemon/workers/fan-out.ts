// The broadcast fan-out worker: the leased-queue runner (runner.ts) with one job, "fan out what is
// unfinished", claimed when a campaign waits (woken on the bus when one is accepted, or at a poll:
// another process may have accepted it). Its batches are stored with the campaign's position, so
// no lease is needed to keep two daemons from doubling a copy (src/broadcasts/fan-out.ts); on stop
// it ends after the batch in hand and the next start goes on from there.
import type { Service } from '../../src/service.js';
import { leasedRunner, type QueueWorker } from './runner.js';

const IDLE_POLL_MS = 1_000;

export function fanOutWorker(service: Service, opts: { start: boolean } = { start: true }): QueueWorker {
  let stopping = false;
  return leasedRunner<'fan-out', number>(
    {
      name: 'fan-out',
      concurrency: 1,
      idlePollMs: IDLE_POLL_MS,
      wakeOn: ['campaign'],
      claim: async () => ((await service.fanOut.toFanOut()).length ? ['fan-out'] : []),
      run: () => service.fanOut.runOnce(() => stopping),
      abandon: {
        graceMs: 0,
        fn: async () => {
          stopping = true;
        },
      },
    },
    { bus: service.bus, log: service.deps.log },
    opts,
  );
}
