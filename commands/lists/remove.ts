import type { CommandSpec } from '../spec.js';
import { YES, confirm, mayAsk } from '../confirm.js';

export default {
  noun: 'lists',
  verb: 'remove',
  summary: 'delete a newsletter list and all its subscribers (irreversible)',
  args: ['<id>'],
  ids: { args: { 0: 'list' } },
  options: [YES],
  async run(ctx, [id], opts) {
    const service = await ctx.parts('lists');
    const ws = await ctx.workspace();
    if (mayAsk(ctx, opts)) {
      const l = await service.lists.get(ws, id!);
      await confirm(ctx, opts, `Delete the list '${l.name}' and its ${l.subscriber_count} subscriber(s)? This cannot be undone.`);
    }
    await service.lists.remove(ws, id!);
    ctx.out.result({ id, removed: true }, () => ctx.out.line(`removed list ${id} and its subscribers`));
  },
} satisfies CommandSpec;
