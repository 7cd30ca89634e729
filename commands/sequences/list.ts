import type { CommandSpec } from '../spec.js';

export default {
  noun: 'sequences',
  verb: 'list',
  summary: "the workspace's sequences, oldest first",
  async run(ctx) {
    const service = await ctx.parts('sequences');
    const all = await service.sequences.list(await ctx.workspace());
    ctx.out.result(all, () => ctx.out.table(all, ['name', 'list_id', 'trigger', 'active', 'step_count', 'id']));
  },
} satisfies CommandSpec;
