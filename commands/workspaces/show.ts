import type { CommandSpec } from '../spec.js';
import { quotaTable } from './usage.js';

export default {
  noun: 'workspaces',
  verb: 'show',
  summary: "the workspace's plan, every quota, and for a trial the dates it turns read-only and is deleted",
  args: ['[name]'],
  async run(ctx, [name]) {
    // The one named, else --workspace, else the only one there is.
    const w = await (await ctx.parts('workspaces')).workspaces.show(name ?? (await ctx.workspace()).name);
    ctx.out.result(w, () => {
      ctx.out.line(`${w.name} (${w.plan}), created ${w.created_at}`);
      if (w.read_only_at)
        ctx.out.line(
          `trial: read-only from ${w.read_only_at}; its data is deleted at ${w.delete_at} unless it moves to a plan (svc workspaces set-plan)`,
        );
      quotaTable(ctx, w.usage);
    });
  },
} satisfies CommandSpec;
