import type { CommandSpec } from '../spec.js';

export default {
  noun: 'addresses',
  verb: 'disable',
  summary: 'stop an address from sending (kept registered)',
  args: ['<address>'],
  async run(ctx, [address]) {
    const service = await ctx.docService('addresses');
    const a = await service.addresses.setStatus(await ctx.workspace(), address!, 'disabled');
    ctx.out.result({ id: a.id, address: a.address, status: a.status }, () => ctx.out.line(`${a.address} is ${a.status}`));
  },
} satisfies CommandSpec;
