import type { CommandSpec } from '../spec.js';

export default {
  noun: 'subscribers',
  verb: 'remove',
  summary: 'delete a subscriber from a list (it is not suppressed: see unsubscribe)',
  args: ['<list_id>', '<sub_id>'],
  ids: { args: { 0: 'list', 1: 'subscriber' } },
  async run(ctx, [listId, subId]) {
    const service = await ctx.parts('lists');
    await service.lists.removeSubscriber(await ctx.workspace(), listId!, subId!);
    ctx.out.result({ id: subId, removed: true }, () => ctx.out.line(`removed subscriber ${subId}`));
  },
} satisfies CommandSpec;
