import type { CommandSpec } from '../spec.js';
import { YES, confirm, mayAsk } from '../confirm.js';

export default {
  noun: 'domains',
  verb: 'remove',
  summary: 'remove a domain (with --force, also its addresses)',
  args: ['<domain>'],
  options: [{ flags: '--force', description: 'remove its registered addresses too' }, YES],
  async run(ctx, [domain], opts) {
    const service = await ctx.parts('addresses', 'domains');
    const ws = await ctx.workspace();
    if (mayAsk(ctx, opts)) {
      const d = await service.domains.show(ws, domain!);
      const addresses = (await service.addresses.list(ws)).filter((a) => a.domain === d.domain).length;
      await confirm(
        ctx,
        opts,
        `Remove ${d.domain}? Its DKIM key is deleted for good (added again, it gets a new key to publish)${opts.force === true && addresses ? `, and its ${addresses} address(es) are removed` : ''}.`,
      );
    }
    const r = await service.domains.remove(ws, domain!, { force: opts.force === true });
    ctx.out.result(r, () => ctx.out.line(`removed ${r.domain}${r.addresses_removed ? ` and ${r.addresses_removed} address(es)` : ''}`));
  },
} satisfies CommandSpec;
