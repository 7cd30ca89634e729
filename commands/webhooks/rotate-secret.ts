import type { CommandSpec } from '../spec.js';
import { parseAge } from '../time.js';

export default {
  noun: 'webhooks',
  verb: 'rotate-secret',
  summary: 'new signing secret for an endpoint, printed once; the old one goes on signing (X-Svc-Signature-Previous) for the grace period',
  args: ['<id>'],
  ids: { args: { 0: 'endpoint' } },
  options: [
    {
      flags: '--grace <age>',
      description: 'how long the old secret still signs, in X-Svc-Signature-Previous (90s, 30m, 24h, 7d; 0 stops it at once)',
      default: '24h',
    },
  ],
  async run(ctx, [id], opts) {
    const grace = parseAge(String(opts.grace), '--grace');
    const service = await ctx.parts('webhooks');
    const r = await service.webhooks.rotateSecret(await ctx.workspace(), id!, grace * 1000);
    ctx.out.result(r, () => {
      ctx.out.record(r, ['id', 'secret', 'secret_rotated_at', 'previous_secret_until']);
      ctx.out.note(
        r.previous_secret_until
          ? `until ${r.previous_secret_until} deliveries carry the old secret's signature in X-Svc-Signature-Previous too: move the receiver to the new secret before then`
          : 'the old secret stopped signing at once',
      );
    });
  },
} satisfies CommandSpec;
