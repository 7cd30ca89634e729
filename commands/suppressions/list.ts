import type { CommandSpec } from '../spec.js';

export default {
  noun: 'suppressions',
  verb: 'list',
  summary: 'the workspace suppression list: addresses never mailed',
  async run(ctx) {
    const service = await ctx.parts('suppressions');
    const all = await service.suppressions.list(await ctx.workspace());
    ctx.out.result(all, () => ctx.out.table(all, ['address', 'reason', 'class', 'created_at', 'message_id', 'detail']));
  },
} satisfies CommandSpec;
