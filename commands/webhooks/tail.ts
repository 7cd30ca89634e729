import type { CommandSpec } from '../spec.js';
import type { AttemptView } from '../../src/webhooks/webhooks.js';
import { parseSince } from '../time.js';
import { follow } from '../follow.js';
import type { Service } from '../../src/service.js';

export default {
  noun: 'webhooks',
  verb: 'tail',
  summary: 'follow delivery attempts as they happen (a live view on a terminal; Ctrl-C to stop)',
  ids: { options: { endpoint: 'endpoint' } },
  options: [
    { flags: '--endpoint <id>', description: 'attempts to this endpoint only' },
    { flags: '--failed', description: 'failed attempts only' },
    { flags: '--since <time>', description: 'start from this ISO time or age (default: now)' },
  ],
  async run(ctx, _args, opts) {
    const ws = await ctx.workspace();
    let since = opts.since ? parseSince(opts.since as string) : new Date().toISOString();
    const seen = new Set<string>();
    /** Attempts not shown yet, oldest first. */
    const poll = async (service: Service): Promise<AttemptView[]> => {
      const rows = await service.webhooks.deliveries(ws, {
        ...(opts.endpoint ? { endpoint_id: opts.endpoint as string } : {}),
        ...(opts.failed ? { failed: true } : {}),
        since,
        limit: 1000,
      });
      const fresh = rows.filter((r) => !seen.has(r.id)).reverse();
      for (const r of fresh) seen.add(r.id);
      // Rows at the same instant as the newest may still arrive; older ids can be forgotten.
      if (rows[0]) {
        since = rows[0].attempted_at;
        for (const r of rows) if (r.attempted_at < since) seen.delete(r.id);
      }
      return fresh;
    };
    return follow(ctx, {
      topic: 'attempted',
      poll,
      line: (r) =>
        `${r.attempted_at} ${r.ok ? 'ok  ' : 'FAIL'} ${r.status_code ?? '-'} ${r.event} ${r.endpoint_id} ${r.id}${r.error ? ` ${r.error}` : ''}`,
      view: async () => (await import('./tail-view.js')).tailView,
    });
  },
} satisfies CommandSpec;
