import type { CommandSpec } from '../spec.js';

export default {
  noun: 'suppressions',
  verb: 'remove',
  summary: 'mail this address again',
  args: ['<address>'],
  async run(ctx, [address]) {
    const service = await ctx.parts('suppressions');
    const r = await service.suppressions.remove(await ctx.workspace(), address!);
    ctx.out.result(r, () => ctx.out.line(`${r.address} is no longer suppressed`));
  },
} satisfies CommandSpec;
