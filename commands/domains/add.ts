// commands/domains/: `svc domains ...`, one file per verb (watch.tsx is the live view).
import type { CommandSpec } from '../spec.js';
import { printDomain } from './render.js';

export default {
  noun: 'domains',
  verb: 'add',
  summary: 'add a domain: makes its ownership token and 2048-bit DKIM key, prints the five records to publish',
  args: ['<domain>'],
  options: [{ flags: '--legacy-verified', description: 'mark as verified before the five-record scheme (migrations only)' }],
  async run(ctx, [domain], opts) {
    const service = await ctx.parts('domains');
    const v = await service.domains.add(await ctx.workspace(), domain!, { legacyVerified: opts.legacyVerified === true });
    ctx.out.result(v, () => {
      printDomain(ctx.out, v);
      ctx.out.note(`publish these records at your DNS provider, then run: svc domains verify ${v.domain}`);
    });
  },
} satisfies CommandSpec;
