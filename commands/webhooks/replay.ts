import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';
import { parseSince } from '../time.js';

export default {
  noun: 'webhooks',
  verb: 'replay',
  summary: "send a delivery's event again, freshly signed (or every failed one with --failed --since)",
  args: ['[delivery_id]'],
  options: [
    { flags: '--failed', description: 'replay every event whose latest attempt failed (needs --since)' },
    { flags: '--since <time>', description: 'with --failed: attempts at or after this ISO time or age (30m, 2h, 7d)' },
  ],
  async run(ctx, [id], opts) {
    if (id && (opts.failed || opts.since)) throw new SvcError('usage', 'give a delivery id, or --failed --since TIME, not both');
    if (!id && !(opts.failed && opts.since)) throw new SvcError('usage', 'give a delivery id, or --failed --since TIME');
    const service = await ctx.service();
    const ws = await ctx.workspace();
    if (id) {
      const r = await service.webhooks.replay(ws, id);
      ctx.out.result(r, () => ctx.out.record(r, ['id', 'endpoint_id', 'event', 'status_code', 'duration_ms', 'error']));
      if (!r.ok) ctx.out.note(`not delivered: ${r.error ?? 'failed'}`);
      return r.ok ? 0 : 1;
    }
    const all = await service.webhooks.replayFailed(ws, parseSince(opts.since as string));
    ctx.out.result(all, () => {
      ctx.out.table(all, ['id', 'endpoint_id', 'event', 'message_id', 'status_code', 'error']);
      ctx.out.note(`${all.filter((r) => r.ok).length} of ${all.length} delivered`);
    });
    return all.every((r) => r.ok) ? 0 : 1;
  },
} satisfies CommandSpec;
