import type { CommandSpec } from '../spec.js';
import type { inboxListItem } from '../../src/inbox/inbox.js';

type Row = ReturnType<typeof inboxListItem>;
/** Items are read again when the daemon announces some (admin socket or LISTEN), and this often besides. */
const FALLBACK_MS = 2_000;
/** With nobody to announce (a file store no daemon owns), plain polling. */
const POLL_MS = 500;

export default {
  noun: 'inbox',
  verb: 'watch',
  summary: 'new inbox items as they arrive, with their kind (a live view on a terminal, plain lines otherwise; Ctrl-C to stop)',
  async run(ctx) {
    const service = await ctx.service();
    const ws = await ctx.workspace();
    // Only what arrives from now on: the newest item now is where watching starts.
    const newest = async () => (await service.inbox.list(ws, { folder: 'inbox', limit: 1 })).data[0]?.id ?? null;
    let last = await newest();
    const poll = async (): Promise<Row[]> => {
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
    const events = service.store.events;
    if (events) service.bus.connect(events, { hear: true });
    const stop = new AbortController();
    const wait = () => service.bus.next('received', events ? FALLBACK_MS : POLL_MS, stop.signal);
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    if (ctx.out.json || !ctx.io.stdout.isTTY) {
      while (!stop.signal.aborted) {
        for (const i of await poll()) ctx.out.line(ctx.out.json ? JSON.stringify(i) : `${i.created_at} ${i.kind.padEnd(10)} ${i.from} ${JSON.stringify(i.subject)} ${i.id}`);
        await wait();
      }
      return;
    }
    const { watchView } = await import('./watch-view.js');
    await watchView(poll, wait, stop.signal);
  },
} satisfies CommandSpec;
