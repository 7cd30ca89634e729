import type { CommandSpec } from '../spec.js';

export default {
  noun: 'broadcasts',
  verb: 'list',
  summary: "the workspace's campaigns, newest first",
  async run(ctx) {
    const service = await ctx.parts('broadcasts');
    const all = await service.broadcasts.list(await ctx.workspace());
    ctx.out.result(all, () => ctx.out.table(all, ['created_at', 'status', 'recipients', 'copies', 'subject', 'list_id', 'id']));
  },
} satisfies CommandSpec;
