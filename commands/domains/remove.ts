import type { CommandSpec } from '../spec.js';

export default {
  noun: 'domains',
  verb: 'remove',
  summary: 'remove a domain (with --force, also its addresses)',
  args: ['<domain>'],
  options: [{ flags: '--force', description: 'remove its registered addresses too' }],
  async run(ctx, [domain], opts) {
    const service = await ctx.service();
    const r = await service.domains.remove(await ctx.workspace(), domain!, { force: opts.force === true });
    ctx.out.result(r, () => ctx.out.line(`removed ${r.domain}${r.addresses_removed ? ` and ${r.addresses_removed} address(es)` : ''}`));
  },
} satisfies CommandSpec;
