import type { CommandSpec } from '../spec.js';

export default {
  noun: 'steps',
  verb: 'remove',
  summary: 'remove a step (subscribers not yet past it skip it)',
  args: ['<sequence_id>', '<step_id>'],
  ids: { args: { 0: 'sequence', 1: 'step' } },
  async run(ctx, [sequenceId, stepId]) {
    const service = await ctx.parts('sequences');
    await service.sequences.removeStep(await ctx.workspace(), sequenceId!, stepId!);
    ctx.out.result({ id: stepId, removed: true }, () => ctx.out.line(`removed step ${stepId}`));
  },
} satisfies CommandSpec;
