import type { CommandSpec } from '../spec.js';

export default {
  noun: 'lists',
  verb: 'list',
  summary: "the workspace's newsletter lists, oldest first",
  async run(ctx) {
    const service = await ctx.parts('lists');
    const all = await service.lists.list(await ctx.workspace());
    ctx.out.result(all, () => ctx.out.table(all, ['name', 'subscriber_count', 'from_address', 'double_opt_in', 'id']));
  },
} satisfies CommandSpec;
