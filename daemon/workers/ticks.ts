// The daemon's periodic ticks, in one place (cron expressions, the `cron` package): what runs when
// the clock says so rather than when work is announced. Due work itself lives in the store; a tick
// only looks for it. Listed by `ticks` (for status views).
import { CronJob } from 'cron';
import type { Log } from '../../src/log.js';

export interface Tick {
  name: string;
  /** Six fields: second minute hour day month weekday (UTC). */
  cron: string;
  run(): Promise<void> | void;
}

export interface Ticks {
  ticks: ReadonlyArray<Pick<Tick, 'name' | 'cron'>>;
  stop(): Promise<void>;
}

export function startTicks(list: Tick[], log: Log): Ticks {
  const running = new Set<Promise<void>>();
  const jobs = list.map((t) =>
    CronJob.from({
      cronTime: t.cron,
      timeZone: 'UTC',
      start: true,
      unrefTimeout: true,
      // A tick still running when the next is due lets that one go.
      waitForCompletion: true,
      onTick: async () => {
        const p = Promise.resolve()
          .then(() => t.run())
          .catch((e: Error) => log.warn(`${t.name}: ${e.message}`));
        running.add(p);
        await p;
        running.delete(p);
      },
    }),
  );
  return {
    ticks: list.map(({ name, cron }) => ({ name, cron })),
    async stop() {
      for (const j of jobs) void j.stop();
      await Promise.all(running);
    },
  };
}
