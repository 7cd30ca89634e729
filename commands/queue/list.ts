// commands/queue/: `svc queue ...`, one file per verb (the operator's view of the outbound queue).
import type { CommandSpec } from '../spec.js';
import { parseLimit } from '../time.js';
import { FILTER_OPTIONS, queueFilter } from './filter.js';
import { QUEUE_LIST_MAX } from '../../src/send/queue-admin.js';

export default {
  noun: 'queue',
  verb: 'list',
  summary: 'queued and deferred messages, oldest first, with attempts, last error and next attempt (every workspace unless --workspace)',
  options: [...FILTER_OPTIONS, { flags: '--limit <n>', description: `at most this many jobs (default 100, at most ${QUEUE_LIST_MAX})` }],
  async run(ctx, _args, opts) {
    const filter = { ...(await queueFilter(ctx, opts)), limit: parseLimit(opts.limit, 100, QUEUE_LIST_MAX) };
    const rows = await (await ctx.parts('queue')).queue.list(filter);
    ctx.out.result(rows, () => {
      ctx.out.table(
        rows.map((r) => ({ ...r, age: age(r.age_seconds), next_attempt_at: r.next_attempt_at ?? 'now', last_error: r.last_error ?? '' })),
        ['state', 'age', 'attempts', 'to', 'next_attempt_at', 'last_error', 'id'],
      );
      ctx.out.note(`${rows.length} message(s) queued${rows.length ? `; oldest ${age(Math.max(...rows.map((r) => r.age_seconds)))}` : ''}`);
    });
  },
} satisfies CommandSpec;

function age(s: number): string {
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}
