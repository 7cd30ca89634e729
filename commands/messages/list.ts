// commands/messages/: `svc messages ...`, one file per verb.
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'messages',
  verb: 'list',
  summary: 'the message log, newest first (one record per recipient)',
  options: [
    { flags: '--status <status>', description: 'queued, sent or bounced' },
    { flags: '--recipient <text>', description: 'case-insensitive part of the recipient address' },
    { flags: '--limit <n>', description: 'at most this many (default 100, maximum 500)' },
    { flags: '--offset <n>', description: 'skip this many' },
  ],
  async run(ctx, _args, opts) {
    const service = await ctx.service();
    const r = await service.messages.list(await ctx.workspace(), {
      status: opts.status as string | undefined,
      recipient: opts.recipient as string | undefined,
      limit: opts.limit as string | undefined,
      offset: opts.offset as string | undefined,
    });
    ctx.out.result(r.data, () => {
      ctx.out.table(r.data, ['created_at', 'status', 'to', 'subject', 'id']);
      ctx.out.note(`${r.data.length} of ${r.total}`);
    });
  },
} satisfies CommandSpec;
