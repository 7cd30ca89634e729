// commands/sequences/: `svc sequences ...`, one file per verb: timed sequences of a list.
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'sequences',
  verb: 'create',
  summary: "a timed sequence for a list's new subscribers (trigger subscribe)",
  args: ['<name>'],
  ids: { options: { list: 'list' } },
  options: [{ flags: '--list <list_id>', description: 'the list whose subscribers are enrolled when they become active (required)' }],
  async run(ctx, [name], opts) {
    const service = await ctx.parts('sequences');
    const s = await service.sequences.create(await ctx.workspace(), { name, list_id: opts.list });
    ctx.out.result(s, () => ctx.out.line(`created sequence ${s.name} (${s.id})`));
  },
} satisfies CommandSpec;
