import type { CommandSpec } from '../spec.js';

export default {
  noun: 'webhooks',
  verb: 'rotate-secret',
  summary: 'new signing secret for an endpoint, printed once; the old one stops at once',
  args: ['<id>'],
  async run(ctx, [id]) {
    const service = await ctx.service();
    const r = await service.webhooks.rotateSecret(await ctx.workspace(), id!);
    ctx.out.result(r, () => ctx.out.record(r, ['id', 'secret', 'secret_rotated_at']));
  },
} satisfies CommandSpec;
