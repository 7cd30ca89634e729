import type { CommandSpec } from '../spec.js';

export default {
  noun: 'broadcasts',
  verb: 'cancel',
  summary: 'stop a campaign: no more copies are made, and those not yet handed off are not sent',
  args: ['<id>'],
  ids: { args: { 0: 'campaign' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('broadcasts');
    const c = await service.broadcasts.cancel(await ctx.workspace(), id!);
    ctx.out.result(c, () => ctx.out.line(`cancelled campaign ${c.id}: ${c.counts!.sent} sent before it stopped`));
  },
} satisfies CommandSpec;
