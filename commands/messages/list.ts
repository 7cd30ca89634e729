// commands/messages/: `svc messages ...`, one file per verb.
import type { CommandSpec } from '../spec.js';
import { parseSince } from '../time.js';

export default {
  noun: 'messages',
  verb: 'list',
  summary: 'the message log, newest first (one record per recipient)',
  options: [
    { flags: '--status <status>', description: 'queued, sent or bounced' },
    { flags: '--recipient <text>', description: 'case-insensitive part of the recipient address' },
    { flags: '--message-id <id>', description: 'the record(s) of the mail with this Message-ID header (angle brackets optional)' },
    { flags: '--from <text>', description: 'case-insensitive part of the sender address' },
    { flags: '--since <time>', description: 'created at or after this ISO time or age (30m, 2h, 7d)' },
    { flags: '--until <time>', description: 'created before this ISO time or age' },
    { flags: '--limit <n>', description: 'at most this many (default 100, maximum 500)' },
    { flags: '--offset <n>', description: 'skip this many' },
  ],
  async run(ctx, _args, opts) {
    const service = await ctx.parts('messages');
    const r = await service.messages.list(await ctx.workspace(), {
      status: opts.status as string | undefined,
      recipient: opts.recipient as string | undefined,
      messageId: opts.messageId as string | undefined,
      from: opts.from as string | undefined,
      since: opts.since === undefined ? undefined : parseSince(String(opts.since)),
      until: opts.until === undefined ? undefined : parseSince(String(opts.until), new Date(), '--until'),
      limit: opts.limit as string | undefined,
      offset: opts.offset as string | undefined,
    });
    ctx.out.result(r.data, () => {
      ctx.out.table(r.data, ['created_at', 'status', 'to', 'subject', 'id']);
      ctx.out.note(`${r.data.length} of ${r.total}`);
    });
  },
} satisfies CommandSpec;
