// The daemon's report of itself for `svc status`: its listeners and their connections,
// its faults, its ticks, and the mail it accepted, sent, deferred and bounced over the last minute
// and hour (counted from the mail log's events in 10-second buckets). Written into the store every
// few seconds (daemons.beat) and removed at a clean stop.
import { hostname } from 'node:os';
import type { Service } from '../src/service.js';
import type { DaemonStatus, Rates } from '../src/model/daemon-status.js';
import { buildInfo } from '../src/build-info.js';

export const BEAT_MS = 5_000;
const BUCKET_MS = 10_000;
const HOUR_BUCKETS = 360;
const MINUTE_BUCKETS = 6;

export interface StatusReporter {
  id: string;
  /** The report now (also what the next beat writes). */
  report(): DaemonStatus;
  /** Writes the report now. */
  beat(): Promise<void>;
  stop(): Promise<void>;
}

const zero = (): Rates => ({ accepted: 0, sent: 0, deferred: 0, bounced: 0 });

export function statusReporter(
  service: Service,
  opts: {
    listeners: () => Array<{ name: string; url: string; stats?: () => Record<string, number> }>;
    ticks: ReadonlyArray<{ name: string; cron: string }>;
    everyMs?: number;
  },
): StatusReporter {
  const { store, clock, random, log } = service.deps;
  const id = `${hostname()}:${process.pid}:${random.bytes(3).toString('hex')}`;
  const startedAt = clock.now().toISOString();
  /** Bucket number (time / 10 s) → counts. */
  const buckets = new Map<number, Rates>();
  const bucket = () => {
    const n = Math.floor(clock.now().getTime() / BUCKET_MS);
    let b = buckets.get(n);
    if (!b) {
      buckets.set(n, (b = zero()));
      for (const k of buckets.keys()) if (k <= n - HOUR_BUCKETS) buckets.delete(k);
    }
    return b;
  };
  const off = service.events.listen((kind, f) => {
    if (kind === 'accepted') bucket().accepted += Number(f.queued) || 0;
    else if (kind === 'delivery' && (f.status === 'sent' || f.status === 'deferred' || f.status === 'bounced')) bucket()[f.status]++;
  });
  const sum = (last: number): Rates => {
    const now = Math.floor(clock.now().getTime() / BUCKET_MS);
    const out = zero();
    for (const [k, b] of buckets) {
      if (k <= now - last) continue;
      out.accepted += b.accepted;
      out.sent += b.sent;
      out.deferred += b.deferred;
      out.bounced += b.bounced;
    }
    return out;
  };
  const report = (): DaemonStatus => ({
    id,
    host: hostname(),
    pid: process.pid,
    version: buildInfo().version,
    started_at: startedAt,
    updated_at: clock.now().toISOString(),
    listeners: opts.listeners().map((l) => {
      const c = l.stats?.().connections;
      return { name: l.name, url: l.url, connections: typeof c === 'number' ? c : null };
    }),
    rates: { minute: sum(MINUTE_BUCKETS), hour: sum(HOUR_BUCKETS) },
    faults: service.faults.list(),
    ticks: opts.ticks.map((t) => ({ name: t.name, cron: t.cron })),
  });
  const beat = () => store.daemons.beat(report());
  const timer = setInterval(
    () => void beat().catch((e: Error) => log.warn(`status: cannot write this daemon's report: ${e.message}`)),
    opts.everyMs ?? BEAT_MS,
  );
  timer.unref();
  void beat().catch(() => {});
  return {
    id,
    report,
    beat,
    async stop() {
      clearInterval(timer);
      off();
      await store.daemons.gone(id).catch(() => {});
    },
  };
}
