import type { CommandSpec } from '../spec.js';

export default {
  noun: 'sequences',
  verb: 'remove',
  summary: 'remove a sequence with its steps (its subscribers get no more of them)',
  args: ['<id>'],
  ids: { args: { 0: 'sequence' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('sequences');
    await service.sequences.remove(await ctx.workspace(), id!);
    ctx.out.result({ id, removed: true }, () => ctx.out.line(`removed sequence ${id} and its steps`));
  },
} satisfies CommandSpec;
