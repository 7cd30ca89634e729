import type { CommandSpec } from '../spec.js';

export default {
  noun: 'broadcasts',
  verb: 'show',
  summary: 'one campaign with its counts (queued, sent, bounced, opened, clicked, unsubscribed)',
  args: ['<id>'],
  ids: { args: { 0: 'campaign' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('broadcasts');
    const c = await service.broadcasts.show(await ctx.workspace(), id!);
    ctx.out.result(c, () => {
      const { counts, ...rest } = c;
      ctx.out.record({ ...rest, ...counts });
    });
  },
} satisfies CommandSpec;
