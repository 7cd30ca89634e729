import type { CommandSpec } from '../spec.js';

export default {
  noun: 'workspaces',
  verb: 'show',
  summary: "the workspace's plan, every quota, and for a trial the dates it turns read-only and is deleted",
  args: ['<name>'],
  async run(ctx, [name]) {
    const w = await (await ctx.service()).workspaces.show(name!);
    ctx.out.result(w, () => {
      ctx.out.line(`${w.name} (${w.plan}), created ${w.created_at}`);
      if (w.read_only_at) ctx.out.line(`trial: read-only from ${w.read_only_at}; its data is deleted at ${w.delete_at} unless it moves to a plan (svc workspaces set-plan)`);
      ctx.out.table(
        w.usage.map((q) => ({ ...q, limit: q.limit ?? 'unlimited', window: q.window ?? '-', resets_at: q.resets_at ?? 'never' })),
        ['kind', 'used', 'limit', 'window', 'resets_at'],
      );
    });
  },
} satisfies CommandSpec;
