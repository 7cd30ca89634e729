import type { CommandSpec } from '../spec.js';
import type { Context } from '../context.js';

/** The quotas as a table (`usage` and `show`): unlimited and never-resetting ones said in words. */
export function quotaTable(
  ctx: Context,
  quotas: Array<{ kind: string; used: number; limit: number | null; window: string | null; resets_at: string | null }>,
): void {
  ctx.out.table(
    quotas.map((q) => ({ ...q, limit: q.limit ?? 'unlimited', window: q.window ?? '-', resets_at: q.resets_at ?? 'never' })),
    ['kind', 'used', 'limit', 'window', 'resets_at'],
  );
}

export default {
  noun: 'workspaces',
  verb: 'usage',
  summary: "every quota of the workspace's plan: used, limit, window, reset time",
  args: ['[name]'],
  async run(ctx, [name]) {
    // The one named, else --workspace, else the only one there is.
    const u = await (await ctx.parts('workspaces')).workspaces.usage(name ?? (await ctx.workspace()).name);
    ctx.out.result(u, () => {
      ctx.out.line(`${u.workspace} (${u.plan})`);
      quotaTable(ctx, u.quotas);
    });
  },
} satisfies CommandSpec;
