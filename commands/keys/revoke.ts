import type { CommandSpec } from '../spec.js';
import { YES, confirm } from '../confirm.js';

export default {
  noun: 'keys',
  verb: 'revoke',
  summary: 'revoke a key; takes effect on the next request',
  args: ['<id>'],
  ids: { args: { 0: 'key' } },
  options: [YES],
  async run(ctx, [id], opts) {
    const service = await ctx.docService('keys');
    const ws = await ctx.workspace();
    const key = (await service.keys.list(ws)).find((k) => k.id === id && !k.revoked_at);
    if (key)
      await confirm(
        ctx,
        opts,
        `Revoke key ${key.name ? `'${key.name}' ` : ''}(${key.prefix}…, ${key.scopes.join(',')})? Every request and SMTP login with it fails from the next one; it cannot be restored.`,
      );
    const r = await service.keys.revoke(ws, id!);
    ctx.out.result(r, () => ctx.out.line(`revoked ${r.id} at ${r.revoked_at}`));
  },
} satisfies CommandSpec;
