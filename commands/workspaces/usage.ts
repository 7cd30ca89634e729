import type { CommandSpec } from '../spec.js';

export default {
  noun: 'workspaces',
  verb: 'usage',
  summary: "every quota of the workspace's plan: used, limit, window, reset time",
  args: ['<name>'],
  async run(ctx, [name]) {
    const u = await (await ctx.service()).workspaces.usage(name!);
    ctx.out.result(u, () => {
      ctx.out.line(`${u.workspace} (${u.plan})`);
      ctx.out.table(
        u.quotas.map((q) => ({ ...q, limit: q.limit ?? 'unlimited', window: q.window ?? '-', resets_at: q.resets_at ?? 'never' })),
        ['kind', 'used', 'limit', 'window', 'resets_at'],
      );
    });
  },
} satisfies CommandSpec;
