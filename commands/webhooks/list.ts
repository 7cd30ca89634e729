import type { CommandSpec } from '../spec.js';

export default {
  noun: 'webhooks',
  verb: 'list',
  summary: "the workspace's webhook endpoints (never their secrets)",
  async run(ctx) {
    const service = await ctx.parts('webhooks');
    const all = await service.webhooks.list(await ctx.workspace());
    ctx.out.result(all, () => ctx.out.table(all, ['id', 'url', 'events', 'status', 'failing_since', 'disabled_reason']));
  },
} satisfies CommandSpec;
