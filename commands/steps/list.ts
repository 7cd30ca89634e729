import type { CommandSpec } from '../spec.js';

export default {
  noun: 'steps',
  verb: 'list',
  summary: "a sequence's steps, ordered by position",
  args: ['<sequence_id>'],
  ids: { args: { 0: 'sequence' } },
  async run(ctx, [sequenceId]) {
    const service = await ctx.parts('sequences');
    const all = await service.sequences.steps(await ctx.workspace(), sequenceId!);
    ctx.out.result(all, () => ctx.out.table(all, ['position', 'delay_hours', 'subject', 'id']));
  },
} satisfies CommandSpec;
