// commands/lists/: `svc lists ...`, one file per verb: newsletter lists.
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'lists',
  verb: 'create',
  summary: 'create a newsletter list',
  args: ['<name>'],
  options: [
    { flags: '--from-address <address>', description: 'default sender: an active address on a verified domain of the workspace' },
    { flags: '--from-name <name>', description: 'default sender name' },
    { flags: '--reply-to <address>', description: 'stored with the list' },
    { flags: '--description <text>', description: 'what the list is' },
    { flags: '--double-opt-in', description: 'new subscribers are pending until they confirm' },
  ],
  async run(ctx, [name], opts) {
    const service = await ctx.parts('lists');
    const l = await service.lists.create(await ctx.workspace(), {
      name,
      from_address: opts.fromAddress,
      from_name: opts.fromName,
      reply_to: opts.replyTo,
      description: opts.description,
      double_opt_in: opts.doubleOptIn === true,
    });
    ctx.out.result(l, () => ctx.out.line(`created list ${l.name} (${l.id})`));
  },
} satisfies CommandSpec;
