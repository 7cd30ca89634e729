import type { CommandSpec } from '../spec.js';

export default {
  noun: 'inbox',
  verb: 'delete',
  summary: 'delete a received item: it leaves the inbox and its bytes stop counting against storage',
  args: ['<id>'],
  async run(ctx, [id]) {
    const service = await ctx.service();
    const r = await service.inbox.remove(await ctx.workspace(), id!);
    ctx.out.result(r, () => ctx.out.line(`deleted ${r.id}`));
  },
} satisfies CommandSpec;
