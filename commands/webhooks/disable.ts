import type { CommandSpec } from '../spec.js';

export default {
  noun: 'webhooks',
  verb: 'disable',
  summary: 'stop sending to an endpoint; its pending deliveries wait until it is enabled',
  args: ['<id>'],
  ids: { args: { 0: 'endpoint' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('webhooks');
    const e = await service.webhooks.disable(await ctx.workspace(), id!);
    ctx.out.result(e, () => ctx.out.line(`${e.id} disabled`));
  },
} satisfies CommandSpec;
