import type { CommandSpec } from '../spec.js';

export default {
  noun: 'webhooks',
  verb: 'test',
  summary: 'send a test event (message.sent, test: true, message_id test_...) to an endpoint',
  args: ['<endpoint_id>'],
  ids: { args: { 0: 'endpoint' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('webhooks');
    const r = await service.webhooks.test(await ctx.workspace(), id!);
    ctx.out.result(r, () => ctx.out.record(r, ['id', 'endpoint_id', 'message_id', 'status_code', 'duration_ms', 'error', 'response']));
    if (!r.ok) ctx.out.note(`not delivered: ${r.error ?? 'failed'}`);
    return r.ok ? 0 : 1;
  },
} satisfies CommandSpec;
