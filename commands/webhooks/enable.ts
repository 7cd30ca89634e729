import type { CommandSpec } from '../spec.js';

export default {
  noun: 'webhooks',
  verb: 'enable',
  summary: 'send to an endpoint again (also one disabled after a 410 or days of failures)',
  args: ['<id>'],
  ids: { args: { 0: 'endpoint' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('webhooks');
    const e = await service.webhooks.enable(await ctx.workspace(), id!);
    ctx.out.result(e, () => ctx.out.line(`${e.id} enabled`));
  },
} satisfies CommandSpec;
