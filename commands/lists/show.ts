import type { CommandSpec } from '../spec.js';

export default {
  noun: 'lists',
  verb: 'show',
  summary: 'one newsletter list with its subscriber count',
  args: ['<id>'],
  ids: { args: { 0: 'list' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('lists');
    const l = await service.lists.get(await ctx.workspace(), id!);
    ctx.out.result(l, () => ctx.out.record(l));
  },
} satisfies CommandSpec;
