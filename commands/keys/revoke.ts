import type { CommandSpec } from '../spec.js';

export default {
  noun: 'keys',
  verb: 'revoke',
  summary: 'revoke a key; takes effect on the next request',
  args: ['<id>'],
  async run(ctx, [id]) {
    const service = await ctx.service();
    const r = await service.keys.revoke(await ctx.workspace(), id!);
    ctx.out.result(r, () => ctx.out.line(`revoked ${r.id} at ${r.revoked_at}`));
  },
} satisfies CommandSpec;
