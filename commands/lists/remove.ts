import type { CommandSpec } from '../spec.js';

export default {
  noun: 'lists',
  verb: 'remove',
  summary: 'delete a newsletter list and all its subscribers (irreversible)',
  args: ['<id>'],
  async run(ctx, [id]) {
    const service = await ctx.service();
    await service.lists.remove(await ctx.workspace(), id!);
    ctx.out.result({ id, removed: true }, () => ctx.out.line(`removed list ${id} and its subscribers`));
  },
} satisfies CommandSpec;
