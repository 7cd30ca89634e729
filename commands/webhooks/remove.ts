import type { CommandSpec } from '../spec.js';

export default {
  noun: 'webhooks',
  verb: 'remove',
  summary: 'remove an endpoint and its pending deliveries (its delivery log stays)',
  args: ['<id>'],
  async run(ctx, [id]) {
    const service = await ctx.service();
    const r = await service.webhooks.remove(await ctx.workspace(), id!);
    ctx.out.result(r, () => ctx.out.line(`removed ${r.id}`));
  },
} satisfies CommandSpec;
