// commands/subscribers/: `svc subscribers ...`, one file per verb: a list's subscribers.
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'subscribers',
  verb: 'add',
  summary: 'add a subscriber to a list (the same email again updates its name and tags, never its status)',
  args: ['<list_id>', '<email>'],
  ids: { args: { 0: 'list' } },
  options: [
    { flags: '--name <name>', description: 'fills the name merge variables' },
    { flags: '--tags <a,b>', description: 'tags, comma-separated' },
  ],
  async run(ctx, [listId, email], opts) {
    const service = await ctx.parts('lists');
    const tags = typeof opts.tags === 'string' ? opts.tags.split(',') : undefined;
    const s = await service.lists.subscribe(await ctx.workspace(), listId!, { email, name: opts.name, tags });
    ctx.out.result(s, () => ctx.out.line(`${s.email} on list ${listId}: ${s.status} (${s.id})`));
  },
} satisfies CommandSpec;
