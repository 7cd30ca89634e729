import type { CommandSpec } from '../spec.js';

export default {
  noun: 'broadcasts',
  verb: 'show',
  summary: 'one campaign with its counts (queued, sent, bounced, opened, clicked, unsubscribed)',
  args: ['<id>'],
  async run(ctx, [id]) {
    const service = await ctx.service();
    const c = await service.broadcasts.show(await ctx.workspace(), id!);
    ctx.out.result(c, () => {
      const { counts, ...rest } = c;
      ctx.out.record({ ...rest, ...counts });
    });
  },
} satisfies CommandSpec;
