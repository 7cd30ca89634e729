import type { CommandSpec } from '../spec.js';

export default {
  noun: 'inbox',
  verb: 'delete',
  summary: 'delete a received item: it leaves the inbox and its bytes stop counting against storage',
  args: ['<id>'],
  ids: { args: { 0: 'inbox item' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('inbox');
    const r = await service.inbox.remove(await ctx.workspace(), id!);
    ctx.out.result(r, () => ctx.out.line(`deleted ${r.id}`));
  },
} satisfies CommandSpec;
