import type { CommandSpec } from '../spec.js';

export default {
  noun: 'workspaces',
  verb: 'set-plan',
  summary: "change a workspace's plan",
  args: ['<name>', '<plan>'],
  async run(ctx, [name, plan]) {
    const ws = await (await ctx.parts('workspaces')).workspaces.setPlan(name!, plan!);
    ctx.out.result({ id: ws.id, name: ws.name, plan: ws.plan }, () => ctx.out.line(`workspace ${ws.name} is now on ${ws.plan}`));
  },
} satisfies CommandSpec;
