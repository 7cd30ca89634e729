import type { CommandSpec } from '../spec.js';

export default {
  noun: 'messages',
  verb: 'events',
  summary: "one message's opens, clicks and replies, oldest first, each with what most likely caused it",
  args: ['<id>'],
  ids: { args: { 0: 'message' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('tracking');
    const { data } = await service.tracking.events(await ctx.workspace(), id!);
    ctx.out.result(data, () =>
      ctx.out.table(
        data.map((e) => ({ ...e, prefetch: e.prefetch ? 'yes' : 'no', url: e.url ?? '', ip: e.ip ?? '' })),
        ['created_at', 'kind', 'source', 'prefetch', 'ip', 'url', 'user_agent'],
      ),
    );
  },
} satisfies CommandSpec;
