import type { CommandSpec } from '../spec.js';

export default {
  noun: 'subscribers',
  verb: 'unsubscribe',
  summary: 'unsubscribe a subscriber: it stays on the list as unsubscribed and its address is suppressed',
  args: ['<list_id>', '<sub_id>'],
  ids: { args: { 0: 'list', 1: 'subscriber' } },
  async run(ctx, [listId, subId]) {
    const service = await ctx.parts('lists');
    const s = await service.lists.unsubscribe(await ctx.workspace(), listId!, subId!);
    ctx.out.result(s, () => ctx.out.line(`${s.email}: unsubscribed, and suppressed for the workspace`));
  },
} satisfies CommandSpec;
