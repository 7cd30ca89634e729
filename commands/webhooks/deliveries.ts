import type { CommandSpec } from '../spec.js';
import { parseLimit, parseSince } from '../time.js';

export default {
  noun: 'webhooks',
  verb: 'deliveries',
  summary: 'the delivery log, newest first: one row per attempt',
  ids: { options: { endpoint: 'endpoint' } },
  options: [
    { flags: '--endpoint <id>', description: 'attempts to this endpoint only' },
    { flags: '--failed', description: 'failed attempts only (no answer, or not 2xx)' },
    { flags: '--since <time>', description: 'attempts at or after this ISO time or age (30m, 2h, 7d)' },
    { flags: '--limit <n>', description: 'at most this many (default 100, maximum 1000)' },
  ],
  async run(ctx, _args, opts) {
    const service = await ctx.parts('webhooks');
    const rows = await service.webhooks.deliveries(await ctx.workspace(), {
      ...(opts.endpoint ? { endpoint_id: opts.endpoint as string } : {}),
      ...(opts.failed ? { failed: true } : {}),
      ...(opts.since ? { since: parseSince(opts.since as string) } : {}),
      limit: parseLimit(opts.limit),
    });
    ctx.out.result(rows, () =>
      ctx.out.table(rows, ['attempted_at', 'id', 'endpoint_id', 'event', 'kind', 'status_code', 'duration_ms', 'error']),
    );
  },
} satisfies CommandSpec;
