// commands/inbox/: `svc inbox ...`, one file per verb: the team inbox.
import type { CommandSpec } from '../spec.js';
import { sentTo } from '../../src/inbox/inbox.js';

export default {
  noun: 'inbox',
  verb: 'list',
  summary: 'the team inbox, newest first: mail the MX received (inbox) or the copies of sent mail (sent)',
  ids: { options: { thread: 'thread' } },
  options: [
    { flags: '--folder <folder>', description: 'inbox (default) or sent' },
    { flags: '--thread <id>', description: 'items of this thread only' },
    { flags: '--kind <kind>', description: 'items of this kind only: mail, reply, auto_reply, bounce, complaint (or sent)' },
    { flags: '--limit <n>', description: 'at most this many (default 100, maximum 500)' },
    { flags: '--offset <n>', description: 'skip this many' },
  ],
  async run(ctx, _args, opts) {
    const service = await ctx.parts('inbox');
    const r = await service.inbox.list(await ctx.workspace(), {
      folder: opts.folder as string | undefined,
      thread: opts.thread as string | undefined,
      kind: opts.kind as string | undefined,
      limit: opts.limit as string | undefined,
      offset: opts.offset as string | undefined,
    });
    ctx.out.result(r.data, () => {
      ctx.out.table(
        r.data.map((i) => ({ ...i, to: sentTo(i) })),
        ['created_at', 'kind', 'from', 'to', 'subject', 'id'],
      );
      ctx.out.note(`${r.data.length} of ${r.total}`);
    });
  },
} satisfies CommandSpec;
