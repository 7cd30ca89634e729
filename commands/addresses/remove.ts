import type { CommandSpec } from '../spec.js';

export default {
  noun: 'addresses',
  verb: 'remove',
  summary: 'remove a registered address (by address or id)',
  args: ['<address>'],
  async run(ctx, [address]) {
    const service = await ctx.docService('addresses');
    const r = await service.addresses.remove(await ctx.workspace(), address!);
    ctx.out.result(r, () => ctx.out.line(`removed ${r.address}`));
  },
} satisfies CommandSpec;
