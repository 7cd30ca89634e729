// Following what arrives (`svc webhooks tail`, `svc inbox watch`): read again whenever the daemon
// announces the topic (over the admin socket, or LISTEN on Postgres) and at least every
// FALLBACK_MS besides, or every POLL_MS when nobody can announce (a file store no daemon owns);
// until Ctrl-C or SIGTERM. On a terminal a live view (no colour with NO_COLOR), otherwise one line
// per row, or with --json one JSON object per line (NDJSON).
//
// A daemon that restarts under a follower (its admin socket closes) is waited for: the follower
// says so (on stderr, or in the live view's own status line: a line written to the terminal under
// a live view would break its redrawing), connects again when the daemon is back, and goes on from
// where it was. It never opens the file store itself meanwhile, which would keep the daemon from
// starting.
import type { Context } from './context.js';
import type { Service } from '../src/service.js';
import type { Topic } from '../src/model/topic.js';
import { isSvcError } from '../src/errors.js';
import { onStop } from './stop.js';

const FALLBACK_MS = 2_000;
/** With no daemon to announce anything: how often the store is opened and read again. */
const POLL_MS = 1_000;
const RECONNECT_MS = 1_000;

/** A live view's status line: it passes `show`, called with what the follower has to say. */
export type Notes = (show: (text: string) => void) => void;

export interface Follow<T> {
  topic: Topic;
  /** Rows not shown yet, oldest first (read with the service of the moment: it changes on a reconnect). */
  poll: (service: Service) => Promise<T[]>;
  /** A row as one plain line. */
  line: (row: T) => string;
  /** The live view, loaded only on a terminal. */
  view: () => Promise<(poll: () => Promise<T[]>, wait: () => Promise<void>, signal: AbortSignal, notes: Notes) => Promise<void>>;
}

/** Whether an error is the daemon going away (its admin socket closed), not a fault of the request. */
const lost = (e: unknown) => isSvcError(e) && e.kind === 'store_unavailable';

/** Follows until stopped; the exit code: 130 after Ctrl-C (SIGINT), 143 after SIGTERM. */
export async function follow<T>(ctx: Context, f: Follow<T>): Promise<number> {
  let service = await ctx.service();
  const stop = onStop();
  const listen = (s: Service) => {
    if (s.store.events) s.bus.connect(s.store.events, { hear: true });
  };
  listen(service);
  // Holding a file store itself (no daemon), it lets go between reads (Context.release), so that
  // other commands can open it; it reads again every POLL_MS.
  const local = await ctx.holdsStore();
  const wait = () => (local ? stop.sleep(POLL_MS) : service.bus.next(f.topic, service.store.events ? FALLBACK_MS : POLL_MS, stop.signal));
  /** Where the follower's notes go: stderr, or the live view's status line once it has one. */
  let shown: ((text: string) => void) | null = null;
  const say = (text: string) => (shown ? shown(text) : ctx.out.note(text));
  /** Waits for the daemon to be back, saying so; null when stopped first. */
  const reconnect = async (why: unknown): Promise<Service | null> => {
    say(`${(why as Error).message}; waiting for it to come back (Ctrl-C to stop)`);
    while (!stop.signal.aborted) {
      try {
        const s = await ctx.reconnect();
        listen(s);
        say(`connected again to ${s.store.describe ?? 'the store'}`);
        return s;
      } catch (e) {
        if (!lost(e)) throw e;
        await stop.sleep(RECONNECT_MS);
      }
    }
    return null;
  };
  const poll = async (): Promise<T[]> => {
    for (;;) {
      try {
        if (!local) return await f.poll(service);
        try {
          return await f.poll(await ctx.service());
        } finally {
          await ctx.release();
        }
      } catch (e) {
        if (!lost(e) || stop.signal.aborted) throw e;
        const s = await reconnect(e);
        if (!s) return [];
        service = s;
      }
    }
  };
  try {
    if (ctx.out.json || !ctx.io.stdout.isTTY) {
      while (!stop.signal.aborted) {
        for (const row of await poll()) ctx.out.json ? ctx.out.jsonLine(row) : ctx.out.line(f.line(row));
        await wait();
      }
      return stop.code();
    }
    // The live view reads stdin in raw mode: Ctrl-C reaches it as a key, not as SIGINT, and ends it.
    await ctx.out.inkColours();
    await (
      await f.view()
    )(poll, wait, stop.signal, (show) => (shown = show));
    return stop.code();
  } finally {
    stop.dispose();
  }
}
