import type { CommandSpec } from '../spec.js';

export default {
  noun: 'queue',
  verb: 'cancel',
  summary: 'stop one queued message: it is bounced with a reason that says it was cancelled (message.bounced), and nobody is suppressed',
  args: ['<id>'],
  ids: { args: { 0: 'message' } },
  options: [{ flags: '--reason <text>', description: "why, kept in the message record's error" }],
  async run(ctx, [id], opts) {
    const name = ctx.config().workspace;
    const service = await ctx.parts('queue', 'workspaces');
    const ws = name ? await service.workspaces.byName(name) : undefined;
    const m = await service.queue.cancel(id!, {
      ...(ws ? { workspaceId: ws.id } : {}),
      ...(opts.reason ? { reason: String(opts.reason) } : {}),
    });
    const out = { id: m.id, to: m.to, status: m.status, error: m.error };
    ctx.out.result(out, () => ctx.out.line(`cancelled ${m.id} to ${m.to}: ${m.error}`));
  },
} satisfies CommandSpec;
