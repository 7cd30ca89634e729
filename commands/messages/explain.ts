import type { CommandSpec } from '../spec.js';

export default {
  noun: 'messages',
  verb: 'explain',
  summary: 'the whole life of one message in time order: arrival, suppression, each SMTP attempt, status, opens and clicks, webhooks',
  args: ['<id>'],
  ids: { args: { 0: 'message' } },
  async run(ctx, [id]) {
    const service = await ctx.parts('explain');
    const r = await service.explain(await ctx.workspace(), id!);
    ctx.out.result(r, () => {
      ctx.out.line(`message ${r.id}`);
      const width = Math.max(...r.timeline.map((e) => e.stage.length));
      // What came from outside (a user agent, a remote reply) never reaches the terminal as control characters.
      const shown = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
      for (const e of r.timeline) ctx.out.line(`${e.at}  ${e.stage.padEnd(width)}  ${shown(e.detail)}`);
    });
  },
} satisfies CommandSpec;
