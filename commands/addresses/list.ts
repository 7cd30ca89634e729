import type { CommandSpec } from '../spec.js';

export default {
  noun: 'addresses',
  verb: 'list',
  summary: "list the workspace's registered addresses",
  async run(ctx) {
    const service = await ctx.docService('addresses');
    const all = await service.addresses.list(await ctx.workspace());
    ctx.out.result(
      all.map(({ id, address, status, domain, created_at }) => ({ id, address, status, domain, created_at })),
      () => ctx.out.table(all, ['address', 'status', 'domain', 'id']),
    );
  },
} satisfies CommandSpec;
