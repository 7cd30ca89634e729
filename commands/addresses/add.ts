// commands/addresses/: `svc addresses ...`, one file per verb.
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'addresses',
  verb: 'add',
  summary: 'register an exact mailbox (local@domain) on a domain of the workspace',
  args: ['<address>'],
  async run(ctx, [address]) {
    const service = await ctx.docService('addresses');
    const a = await service.addresses.add(await ctx.workspace(), address!);
    ctx.out.result({ id: a.id, address: a.address, status: a.status }, () => ctx.out.line(`registered ${a.address} (${a.status})`));
  },
} satisfies CommandSpec;
