import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';
import { parseSince } from '../time.js';
import { YES, confirm, mayAsk } from '../confirm.js';

export default {
  noun: 'webhooks',
  verb: 'replay',
  summary: "send a delivery's event again, freshly signed (or every failed one with --failed --since)",
  ids: { args: { 0: 'delivery' } },
  args: ['[delivery_id]'],
  options: [
    { flags: '--failed', description: 'replay every event whose latest attempt failed (needs --since)' },
    { flags: '--since <time>', description: 'with --failed: attempts at or after this ISO time or age (30m, 2h, 7d)' },
    { flags: '--dry-run', description: 'with --failed: list what would be sent again, send nothing' },
    YES,
  ],
  async run(ctx, [id], opts) {
    if (id && (opts.failed || opts.since)) throw new SvcError('usage', 'give a delivery id, or --failed --since TIME, not both');
    if (id && opts.dryRun) throw new SvcError('usage', '--dry-run goes with --failed --since TIME');
    if (!id && !(opts.failed && opts.since)) throw new SvcError('usage', 'give a delivery id, or --failed --since TIME');
    const service = await ctx.parts('webhooks');
    const ws = await ctx.workspace();
    if (id) {
      const r = await service.webhooks.replay(ws, id);
      ctx.out.result(r, () => ctx.out.record(r, ['id', 'endpoint_id', 'event', 'status_code', 'duration_ms', 'error']));
      if (!r.ok) ctx.out.note(`not delivered: ${r.error ?? 'failed'}`);
      return r.ok ? 0 : 1;
    }
    const since = parseSince(opts.since as string);
    if (opts.dryRun || mayAsk(ctx, opts)) {
      const would = await service.webhooks.failedSince(ws, since);
      if (opts.dryRun) {
        ctx.out.result(would, () => {
          ctx.out.table(would, ['id', 'endpoint_id', 'event', 'message_id', 'status_code', 'error']);
          ctx.out.note(`${would.length} event(s) would be sent again (--dry-run: nothing was sent)`);
        });
        return 0;
      }
      const endpoints = new Set(would.map((a) => a.endpoint_id)).size;
      if (!would.length) {
        ctx.out.result([], () => ctx.out.note('no failed delivery to replay'));
        return 0;
      }
      await confirm(ctx, opts, `Send ${would.length} failed event(s) again to ${endpoints} endpoint(s), each freshly signed?`);
    }
    const all = await service.webhooks.replayFailed(ws, since);
    ctx.out.result(all, () => {
      ctx.out.table(all, ['id', 'endpoint_id', 'event', 'message_id', 'status_code', 'error']);
      ctx.out.note(`${all.filter((r) => r.ok).length} of ${all.length} delivered`);
    });
    return all.every((r) => r.ok) ? 0 : 1;
  },
} satisfies CommandSpec;
