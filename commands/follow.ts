// Following what arrives (`svc webhooks tail`, `svc inbox watch`): read again whenever the daemon
// announces the topic (over the admin socket, or LISTEN on Postgres) and at least every
// FALLBACK_MS besides, or every POLL_MS when nobody can announce (a file store no daemon owns);
// until Ctrl-C or SIGTERM. On a terminal a live view, otherwise one line per row (a JSON object per
// line with --json).
import type { Context } from './context.js';
import type { Topic } from '../src/model/topic.js';

const FALLBACK_MS = 2_000;
const POLL_MS = 500;

export interface Follow<T> {
  topic: Topic;
  /** Rows not shown yet, oldest first. */
  poll: () => Promise<T[]>;
  /** A row as one plain line. */
  line: (row: T) => string;
  /** The live view, loaded only on a terminal. */
  view: () => Promise<(poll: () => Promise<T[]>, wait: () => Promise<void>, signal: AbortSignal) => Promise<void>>;
}

export async function follow<T>(ctx: Context, f: Follow<T>): Promise<void> {
  const service = await ctx.service();
  const events = service.store.events;
  if (events) service.bus.connect(events, { hear: true });
  const stop = new AbortController();
  const wait = () => service.bus.next(f.topic, events ? FALLBACK_MS : POLL_MS, stop.signal);
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  if (ctx.out.json || !ctx.io.stdout.isTTY) {
    while (!stop.signal.aborted) {
      for (const row of await f.poll()) ctx.out.json ? ctx.out.jsonLine(row) : ctx.out.line(f.line(row));
      await wait();
    }
    return;
  }
  await (
    await f.view()
  )(f.poll, wait, stop.signal);
}
