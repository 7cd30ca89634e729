import type { CommandSpec } from '../spec.js';

export default {
  noun: 'inbox',
  verb: 'threads',
  summary: "the team inbox's threads, newest activity first, with the team's read and archived marks",
  options: [
    { flags: '--view <view>', description: 'all (default), inbox (threads with received mail, not archived) or archived' },
    { flags: '--search <text>', description: 'threads with an item whose sender, a recipient or subject holds this text (any case)' },
    { flags: '--limit <n>', description: 'at most this many (default 100, maximum 500)' },
    { flags: '--offset <n>', description: 'skip this many' },
  ],
  async run(ctx, _args, opts) {
    const service = await ctx.parts('inbox');
    const r = await service.inbox.threads(await ctx.workspace(), {
      view: opts.view as string | undefined,
      search: opts.search as string | undefined,
      limit: opts.limit as string | undefined,
      offset: opts.offset as string | undefined,
    });
    ctx.out.result(r.data, () => {
      ctx.out.table(
        r.data.map((t) => ({ ...t, state: [t.unread ? 'new' : 'read', ...(t.archived ? ['archived'] : [])].join(',') })),
        ['last_at', 'state', 'count', 'last_from', 'subject', 'thread_id'],
      );
      ctx.out.note(`${r.data.length} of ${r.total}`);
    });
  },
} satisfies CommandSpec;
