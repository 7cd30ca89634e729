// commands/workspaces/: `svc workspaces ...`, one file per verb.
import { checkNewWorkspace } from '../../src/workspaces/workspaces.js';
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'workspaces',
  verb: 'create',
  createsStore: true,
  summary: 'create a workspace (default plan trial)',
  args: ['<name>'],
  options: [{ flags: '--plan <plan>', description: 'trial, starter, pro or scale', default: 'trial' }],
  async run(ctx, [name], opts) {
    // Wrong usage never leaves a new, empty store behind.
    checkNewWorkspace(name!, String(opts.plan));
    const ws = await (await ctx.parts('workspaces')).workspaces.create(name!, String(opts.plan));
    ctx.out.result({ id: ws.id, name: ws.name, plan: ws.plan }, () =>
      ctx.out.line(`created workspace ${ws.name} (${ws.plan}) ${ctx.out.color.dim(ws.id)}`),
    );
  },
} satisfies CommandSpec;
