import type { CommandSpec } from '../spec.js';

export default {
  noun: 'queue',
  verb: 'show',
  summary: 'one queued message: its state, attempts, last error and next attempt (svc messages explain has its whole life)',
  args: ['<id>'],
  ids: { args: { 0: 'message' } },
  async run(ctx, [id]) {
    const name = ctx.config().workspace;
    const service = await ctx.parts('queue', 'workspaces');
    const ws = name ? await service.workspaces.byName(name) : undefined;
    const row = await service.queue.show(id!, ws?.id);
    ctx.out.result(row, () => ctx.out.record({ ...row }));
  },
} satisfies CommandSpec;
