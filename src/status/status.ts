// `svc status`: the running daemons at a glance, from their reports (daemon/status.ts)
// and the store: listeners, uptime, the queue by state and age, rates over the last minute and
// hour, open faults, the webhook backlog, the ticks and the domains' health. Read the same way on
// both stores: over the admin socket from the daemon that owns a file store, from Postgres for
// every daemon on it.
import type { DepsOf } from '../deps.js';
import type { DaemonStatus, Rates } from '../model/daemon-status.js';
import { QUEUE_LIST_MAX } from '../send/queue-admin.js';

export interface StatusView {
  /** Whether any daemon reported within the last minute. */
  running: boolean;
  version: string | null;
  uptime_seconds: number | null;
  daemons: Array<Pick<DaemonStatus, 'id' | 'host' | 'pid' | 'version' | 'started_at' | 'updated_at'>>;
  listeners: Array<{ daemon: string; name: string; url: string; connections: number | null }>;
  queue: { total: number; queued: number; deferred: number; sending: number; held: number; oldest_seconds: number };
  rates: { minute: Rates; hour: Rates };
  faults: Array<{ daemon: string; kind: string; detail: string; since: string; count: number }>;
  webhooks: { backlog: number };
  ticks: Array<{ name: string; cron: string }>;
  domains: { total: number; verified: number; pending: number; failing: string[] };
}

const add = (a: Rates, b: Rates): Rates => ({
  accepted: a.accepted + b.accepted,
  sent: a.sent + b.sent,
  deferred: a.deferred + b.deferred,
  bounced: a.bounced + b.bounced,
});
const ZERO: Rates = { accepted: 0, sent: 0, deferred: 0, bounced: 0 };

export function statusService({ store, clock }: DepsOf<'daemons' | 'queue' | 'webhooks' | 'domains'>) {
  return {
    async view(): Promise<StatusView> {
      const now = clock.now();
      const [daemons, jobs, depth, backlog, domains] = await Promise.all([
        store.daemons.list(now.toISOString()),
        store.queue.pending({ limit: QUEUE_LIST_MAX }, now.toISOString()),
        store.queue.depth(),
        store.webhooks.depth(),
        store.domains.listAll(),
      ]);
      const queue = { total: 0, queued: 0, deferred: 0, sending: 0, held: 0, oldest_seconds: 0 };
      for (const j of jobs) {
        const n = j.message_ids.length;
        if (j.leased) queue.sending += n;
        else if (j.held) queue.held += n;
        else if (j.attempts === 0) queue.queued += n;
        else queue.deferred += n;
        queue.oldest_seconds = Math.max(queue.oldest_seconds, Math.round((now.getTime() - Date.parse(j.created_at)) / 1000));
      }
      queue.total = queue.queued + queue.deferred + queue.sending + queue.held;
      const oldest = daemons[0];
      const failing = domains
        .filter((d) => d.status === 'verified' && (d.records ?? []).some((r) => r.status === 'Problem' || r.status === 'Waiting'))
        .map((d) => d.domain)
        .sort();
      return {
        running: daemons.length > 0,
        version: oldest?.version ?? null,
        uptime_seconds: oldest ? Math.max(0, Math.round((now.getTime() - Date.parse(oldest.started_at)) / 1000)) : null,
        daemons: daemons.map(({ id, host, pid, version, started_at, updated_at }) => ({ id, host, pid, version, started_at, updated_at })),
        listeners: daemons.flatMap((d) => d.listeners.map((l) => ({ daemon: d.id, ...l }))),
        // Jobs past the list's cap still count in the total.
        queue: { ...queue, total: Math.max(queue.total, depth) },
        rates: {
          minute: daemons.reduce((r, d) => add(r, d.rates.minute), ZERO),
          hour: daemons.reduce((r, d) => add(r, d.rates.hour), ZERO),
        },
        faults: daemons.flatMap((d) => d.faults.map((f) => ({ daemon: d.id, ...f }))),
        webhooks: { backlog },
        ticks: oldest?.ticks ?? [],
        domains: {
          total: domains.length,
          verified: domains.filter((d) => d.status === 'verified').length,
          pending: domains.filter((d) => d.status !== 'verified').length,
          failing,
        },
      };
    },
  };
}
