import type { CommandSpec } from '../spec.js';

export default {
  noun: 'addresses',
  verb: 'enable',
  summary: 'let a disabled address send again',
  args: ['<address>'],
  async run(ctx, [address]) {
    const service = await ctx.docService('addresses');
    const a = await service.addresses.setStatus(await ctx.workspace(), address!, 'active');
    ctx.out.result({ id: a.id, address: a.address, status: a.status }, () => ctx.out.line(`${a.address} is ${a.status}`));
  },
} satisfies CommandSpec;
