import { SvcError } from '../../src/errors.js';
import type { CommandSpec } from '../spec.js';

export default {
  noun: 'inbox',
  verb: 'mark',
  summary: 'marks a thread read or unread, archived or back in the inbox, for the whole team',
  args: ['<thread-id>'],
  ids: { args: { 0: 'thread' } },
  options: [
    { flags: '--read', description: 'read (until new mail comes into it)' },
    { flags: '--unread', description: 'unread' },
    { flags: '--archive', description: 'archived (until new mail comes into it)' },
    { flags: '--unarchive', description: 'back in the inbox' },
  ],
  async run(ctx, [thread], opts) {
    const both = (a: string, b: string) => {
      if (opts[a] && opts[b]) throw new SvcError('usage', `--${a} and --${b} go one at a time`);
      return opts[a] ? true : opts[b] ? false : undefined;
    };
    const read = both('read', 'unread');
    const archived = both('archive', 'unarchive');
    if (read === undefined && archived === undefined) throw new SvcError('usage', 'give --read, --unread, --archive or --unarchive');
    const service = await ctx.parts('inbox');
    const r = await service.inbox.mark(await ctx.workspace(), thread!, {
      ...(read !== undefined ? { read } : {}),
      ...(archived !== undefined ? { archived } : {}),
    });
    ctx.out.result(r, () =>
      ctx.out.note(
        `thread ${r.thread_id}: ${[read === undefined ? '' : read ? 'read' : 'unread', archived === undefined ? '' : archived ? 'archived' : 'in the inbox'].filter(Boolean).join(', ')}`,
      ),
    );
  },
} satisfies CommandSpec;
