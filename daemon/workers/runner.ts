// One runner for every leased queue (outbound delivery, webhook dispatch, and the coming scheduler,
// inbound processing and fan-outs): claim with a lease → run with a concurrency limit → complete,
// optionally in batches → wake on the bus or a timer → drain on stop. A queue is a short
// configuration of it; the store's claim and lease statements do the rest (a crashed daemon's jobs
// come back when their leases end).
import type { Bus, Topic } from '../../src/bus.js';
import type { Log } from '../../src/log.js';
import type { Worker } from './domain-recheck.js';
import { Waker } from './waker.js';

export interface LeasedQueue<J, R> {
  name: string;
  /** Jobs run at once. */
  concurrency: number;
  /**
   * Jobs claimed ahead of free slots, waiting their turn (one claim for many): at least
   * `concurrency`. Their lease must outlast the wait.
   */
  prefetch?: number;
  /**
   * The fewest jobs worth a claim while others are still in hand (default 1: claim whenever a slot
   * frees); an idle runner always claims.
   */
  minClaim?: number;
  /** Poll interval when nothing announced work. */
  idlePollMs: number;
  /** Topics on the bus that mean work arrived. */
  wakeOn: Topic[];
  /** Up to `max` due jobs, leased to this runner. */
  claim(max: number): Promise<J[]>;
  /** Moves newly arrived work into the queue before a claim when woken or at a poll (a fan-out). */
  prepare?(): Promise<void>;
  run(job: J): Promise<R>;
  /**
   * Records finished jobs' results in one call; while one call runs, the next batch gathers. Absent
   * when `run` completes its own job.
   */
  complete?(results: R[]): Promise<void>;
  /** A heartbeat: extends the leases of the jobs in flight, every `everyMs`. */
  renew?: { everyMs: number; id(job: J): string; fn(ids: string[]): Promise<void> };
  /**
   * On stop, after waiting `graceMs` for jobs in flight: makes those still running give up (their
   * jobs keep their leases and run again after a restart). Without it, stop waits for them.
   */
  abandon?: { graceMs: number; fn(): Promise<void> };
  /** Releases what the queue holds (connections, threads) once drained. */
  close?(): Promise<void> | void;
}

export interface QueueWorker extends Worker {
  /** Work arrived: claim now rather than at the next poll. */
  poke(): void;
}

export function leasedRunner<J, R>(q: LeasedQueue<J, R>, deps: { bus: Bus; log: Log }, opts: { start: boolean }): QueueWorker {
  const { log } = deps;
  const prefetch = Math.max(q.prefetch ?? q.concurrency, q.concurrency);
  const minClaim = q.minClaim ?? 1;
  const inflight = new Map<Promise<void>, J>();
  const ready: J[] = [];
  const waker = new Waker();
  let stopped = false;
  let poked = true;

  // Finished results wait here for the next write; while one write runs, the next batch gathers.
  let done: R[] = [];
  let writing: Promise<void> | null = null;
  const flush = (): Promise<void> => {
    if (writing || !q.complete) return writing ?? Promise.resolve();
    const batch = done;
    done = [];
    if (!batch.length) return Promise.resolve();
    writing = q
      .complete(batch)
      .catch((e: Error) =>
        log.error(`${q.name}: cannot record ${batch.length} results: ${e.message} (their jobs run again when their leases end)`),
      )
      .finally(() => {
        writing = null;
        if (done.length) void flush();
      });
    return writing;
  };
  const settle = async () => {
    while (writing || done.length) await flush();
  };

  const start = (job: J) => {
    const p: Promise<void> = q
      .run(job)
      .then((r) => {
        if (!q.complete) return;
        done.push(r);
        void flush();
      })
      .catch((e: Error) => log.error(`${q.name}: ${e.message}`))
      .finally(() => {
        inflight.delete(p);
        fill();
        waker.wake();
      });
    inflight.set(p, job);
  };
  const fill = () => {
    while (!stopped && inflight.size < q.concurrency && ready.length) start(ready.shift()!);
  };

  /** One claim (after a fan-out when woken); how many jobs it took. */
  const pass = async (): Promise<number> => {
    if (poked) {
      poked = false;
      await q.prepare?.();
    }
    const room = prefetch - inflight.size - ready.length;
    if (room <= 0 || (room < minClaim && inflight.size + ready.length > 0)) return 0;
    const claimed = await q.claim(room);
    ready.push(...claimed);
    fill();
    return claimed.length;
  };

  const loop = async () => {
    let lastPoll = Date.now();
    while (!stopped) {
      let claimed = 0;
      try {
        // Work from other processes without a bus between us, and retries that fell due, are
        // found by polling.
        if (Date.now() - lastPoll >= q.idlePollMs) {
          poked = true;
          lastPoll = Date.now();
        }
        claimed = await pass();
      } catch (e) {
        log.warn(`${q.name}: ${(e as Error).message}`);
      }
      if (stopped) break;
      if (poked) continue;
      if (claimed > 0 && prefetch - inflight.size - ready.length >= minClaim) continue;
      // Full: the next free slot wakes us; idle: the bus or the poll does.
      await waker.sleep(q.idlePollMs);
    }
  };
  const running = opts.start ? loop() : Promise.resolve();

  const heartbeat = q.renew
    ? setInterval(() => {
        if (!inflight.size) return;
        q.renew!.fn([...inflight.values()].map(q.renew!.id)).catch((e: Error) => log.warn(`${q.name}: cannot renew leases: ${e.message}`));
      }, q.renew.everyMs)
    : null;
  heartbeat?.unref();

  const poke = () => {
    poked = true;
    waker.wake();
  };
  const unsubscribe = q.wakeOn.map((t) => deps.bus.subscribe(t, poke));

  return {
    name: q.name,
    poke,
    /** Runs everything due now and records it (tests move the clock, then call this). */
    async runOnce() {
      poked = true;
      while ((await pass()) > 0) while (inflight.size) await Promise.all(inflight.keys());
      while (inflight.size) await Promise.all(inflight.keys());
      await settle();
    },
    async stop() {
      stopped = true;
      unsubscribe.forEach((u) => u());
      waker.wake();
      await running;
      // Claimed jobs not started keep their leases and run when those end (after a restart).
      ready.length = 0;
      if (q.abandon && inflight.size) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(inflight.keys()), new Promise((r) => (timer = setTimeout(r, q.abandon!.graceMs)))]);
        clearTimeout(timer);
        await q.abandon.fn();
      }
      while (inflight.size) await Promise.all(inflight.keys());
      await settle();
      if (heartbeat) clearInterval(heartbeat);
      await q.close?.();
    },
  };
}
