// commands/suppressions/: `svc suppressions ...`, one file per verb.
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'suppressions',
  verb: 'add',
  summary: 'never mail this address (reason manual)',
  args: ['<address>'],
  options: [{ flags: '--note <text>', description: 'why, for the list' }],
  async run(ctx, [address], opts) {
    const service = await ctx.parts('suppressions');
    const s = await service.suppressions.add(await ctx.workspace(), address!, (opts.note as string | undefined) ?? null);
    ctx.out.result(s, () => ctx.out.line(`${s.address} is suppressed (${s.reason}, since ${s.created_at})`));
  },
} satisfies CommandSpec;
