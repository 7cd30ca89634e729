// commands/keys/: `svc keys ...`, one file per verb.
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'keys',
  verb: 'create',
  summary: 'create an API key; the full key is printed once and only its hash is kept',
  options: [
    { flags: '--name <label>', description: 'a label for people', default: 'default' },
    { flags: '--scopes <list>', description: 'comma-separated: send, read, newsletter, contacts, *', default: 'read,send' },
  ],
  async run(ctx, _args, opts) {
    const service = await ctx.docService('keys');
    const ws = await ctx.workspace();
    const k = await service.keys.create(ws, { name: String(opts.name), scopes: String(opts.scopes) });
    ctx.out.result({ id: k.id, name: k.name, key: k.key, scopes: k.scopes, prefix: k.prefix, created_at: k.created_at }, () => {
      ctx.out.line(k.key);
      ctx.out.note(`key ${k.id} (${k.name}, ${k.scopes.join(',')}) for workspace ${ws.name}: store it now, it is not shown again`);
    });
  },
} satisfies CommandSpec;
