import type { CommandSpec } from '../spec.js';
import { YES, confirm } from '../confirm.js';

export default {
  noun: 'webhooks',
  verb: 'remove',
  summary: 'remove an endpoint and its pending deliveries (its delivery log stays)',
  args: ['<id>'],
  ids: { args: { 0: 'endpoint' } },
  options: [YES],
  async run(ctx, [id], opts) {
    const service = await ctx.parts('webhooks');
    const ws = await ctx.workspace();
    const e = (await service.webhooks.list(ws)).find((x) => x.id === id);
    if (e)
      await confirm(
        ctx,
        opts,
        `Remove the endpoint ${e.url}? Its pending deliveries are dropped and its secret is gone; its delivery log stays.`,
      );
    const r = await service.webhooks.remove(ws, id!);
    ctx.out.result(r, () => ctx.out.line(`removed ${r.id}`));
  },
} satisfies CommandSpec;
