import type { CommandSpec } from '../spec.js';
import type { inboxListItem } from '../../src/inbox/inbox.js';
import { follow } from '../follow.js';
import type { Service } from '../../src/service.js';

type Row = ReturnType<typeof inboxListItem>;

export default {
  noun: 'inbox',
  verb: 'watch',
  summary: 'new inbox items as they arrive, with their kind (a live view on a terminal, plain lines otherwise; Ctrl-C to stop)',
  async run(ctx) {
    const ws = await ctx.workspace();
    // Only what arrives from now on: the newest item now is where watching starts.
    const newest = async () => (await (await ctx.service()).inbox.list(ws, { folder: 'inbox', limit: 1 })).data[0]?.id ?? null;
    let last = await newest();
    // Said once watching has begun (stderr: never mixed with the items): what arrives from here is shown.
    ctx.out.note('watching the team inbox for new mail; Ctrl-C to stop');
    const poll = async (service: Service): Promise<Row[]> => {
      const fresh: Row[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = (await service.inbox.list(ws, { folder: 'inbox', limit: 100, offset })).data;
        const at = page.findIndex((i) => i.id === last);
        fresh.push(...(at >= 0 ? page.slice(0, at) : page));
        if (at >= 0 || page.length < 100 || last === null) break;
      }
      if (fresh[0]) last = fresh[0].id;
      return fresh.reverse();
    };
    return follow(ctx, {
      topic: 'received',
      poll,
      line: (i) => `${i.created_at} ${i.kind.padEnd(10)} ${i.from} ${JSON.stringify(i.subject)} ${i.id}`,
      view: async () => (await import('./watch-view.js')).watchView,
    });
  },
} satisfies CommandSpec;
