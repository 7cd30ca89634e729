import type { CommandSpec } from '../spec.js';

export default {
  noun: 'keys',
  verb: 'list',
  summary: "list the workspace's keys (never the keys themselves)",
  async run(ctx) {
    const service = await ctx.docService('keys');
    const rows = await service.keys.list(await ctx.workspace());
    ctx.out.result(rows, () => ctx.out.table(rows, ['id', 'name', 'scopes', 'prefix', 'created_at', 'revoked_at']));
  },
} satisfies CommandSpec;
