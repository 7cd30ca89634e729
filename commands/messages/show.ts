import type { CommandSpec } from '../spec.js';

export default {
  noun: 'messages',
  verb: 'show',
  summary: 'one message record: every field of the API, the error of a bounce',
  args: ['<id>'],
  ids: { args: { 0: 'message' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('messages');
    const m = await service.messages.get(await ctx.workspace(), id!);
    ctx.out.result(m, () => ctx.out.record(m));
  },
} satisfies CommandSpec;
