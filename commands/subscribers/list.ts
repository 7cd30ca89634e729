import type { CommandSpec } from '../spec.js';

export default {
  noun: 'subscribers',
  verb: 'list',
  summary: "a list's subscribers, oldest first",
  args: ['<list_id>'],
  ids: { args: { 0: 'list' } },
  options: [
    { flags: '--status <status>', description: 'pending, active or unsubscribed only' },
    { flags: '--limit <n>', description: 'at most this many (default 100, maximum 1000)' },
    { flags: '--offset <n>', description: 'skip this many' },
  ],
  async run(ctx, [listId], opts) {
    const service = await ctx.parts('lists');
    const r = await service.lists.subscribers(await ctx.workspace(), listId!, {
      status: opts.status as string | undefined,
      limit: opts.limit as string | undefined,
      offset: opts.offset as string | undefined,
    });
    ctx.out.result(r.data, () => {
      ctx.out.table(r.data, ['email', 'name', 'status', 'tags', 'created_at', 'id']);
      ctx.out.note(`${r.data.length} of ${r.total}`);
    });
  },
} satisfies CommandSpec;
