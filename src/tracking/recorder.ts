// Opens and clicks are answered at once (the pixel never waits for the store) and recorded
// afterwards: hits gather here and are written in batches, each batch one store call with the
// records' counters and the webhook events of the counted ones; then the bus wakes the webhook
// worker. A hit whose token is unknown is dropped here (the answer was the same either way). What
// the store cannot take now is kept and tried again (up to MAX_HELD hits, then the oldest go, said
// in the log): a crash loses at most the hits of the last moments, never a message.
import type { DepsOf } from '../deps.js';
import type { OutboxEvent } from '../model/event.js';
import type { TrackedCopy } from '../store/port/tracking.js';
import { counts, type MessageEvent } from '../model/tracking.js';
import { classify, type Hit } from './classify.js';
import { LineThrottle } from '../line-throttle.js';

export interface TrackedHit extends Hit {
  token: string;
  /** The link a click goes to (already checked against its signature). */
  url: string | null;
}

const FLUSH_MS = 50;
const BATCH = 64;
const MAX_HELD = 100_000;
/** Clicks remembered per copy to tell a scanner's burst (several links in one second). */
const RECENT = 10_000;
/** Sent records remembered by token: what labelling and the webhook need of them does not change once sent. */
const RECORDS_KEPT = 50_000;

/**
 * The hits waiting to be written, oldest first: taking a batch off the front and dropping the
 * oldest are O(1) (an index moves; the array is cut down once half of it is behind the index). A
 * copy of the whole array per hit, as before, pinned 500 MB under a pixel flood during an outage.
 */
class HitQueue {
  #items: TrackedHit[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(h: TrackedHit): void {
    this.#items.push(h);
  }

  /** The oldest `n` (still held until drop). */
  first(n: number): TrackedHit[] {
    return this.#items.slice(this.#head, this.#head + n);
  }

  drop(n: number): void {
    this.#head += Math.min(n, this.length);
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}

export function trackingRecorder(deps: DepsOf<'tracking'>, prefetchWindowSeconds: number) {
  const { store, clock, random, log } = deps;
  const held = new HitQueue();
  /** One line a minute about hits dropped or held back, never one per hit. */
  const lines = new LineThrottle(60_000);
  let dropped = 0;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;
  /** message id → seconds (epoch) and count of its last counted-or-not clicks. */
  const recentClicks = new Map<string, { sec: number; n: number }>();
  const sentByToken = new Map<string, TrackedCopy>();

  /** The records of these tokens: remembered ones (sent: fixed from then on), the rest from the store. */
  const records = async (tokens: string[]): Promise<Map<string, TrackedCopy>> => {
    const found = new Map<string, TrackedCopy>();
    const ask: string[] = [];
    for (const t of tokens) {
      const m = sentByToken.get(t);
      if (m) found.set(t, m);
      else ask.push(t);
    }
    for (const m of ask.length ? await store.tracking.byTokens(ask) : []) {
      found.set(m.token!, m);
      if (m.sent_at === null) continue;
      sentByToken.set(m.token!, m);
      if (sentByToken.size > RECORDS_KEPT) sentByToken.delete(sentByToken.keys().next().value!);
    }
    return found;
  };

  const clicksInSecond = (id: string, at: string): number => {
    const sec = Math.floor(Date.parse(at) / 1000);
    const cur = recentClicks.get(id);
    const before = cur && cur.sec === sec ? cur.n : 0;
    recentClicks.delete(id);
    recentClicks.set(id, { sec, n: before + 1 });
    if (recentClicks.size > RECENT) recentClicks.delete(recentClicks.keys().next().value!);
    return before;
  };

  const toEvents = (hits: TrackedHit[], byToken: Map<string, TrackedCopy>) => {
    const events: MessageEvent[] = [];
    const outbox: OutboxEvent[] = [];
    for (const h of hits) {
      const m = byToken.get(h.token);
      if (!m) continue;
      const v = classify(h, m.sent_at, prefetchWindowSeconds, h.kind === 'click' ? clicksInSecond(m.id, h.at) : 0);
      const e: MessageEvent = {
        id: random.sortable(),
        workspace_id: m.workspace_id,
        message_id: m.id,
        kind: h.kind,
        prefetch: !counts(v.source),
        source: v.source,
        reason: v.reason,
        url: h.url,
        ip: h.ip,
        user_agent: h.user_agent,
        created_at: h.at,
      };
      events.push(e);
      // spec.md "Events": only counted ones; an open carries the recipient, a click no link.
      if (!counts(v.source)) continue;
      const base = { message_id: m.id, from: m.from, subject: m.subject };
      outbox.push({
        id: random.sortable(),
        workspace_id: m.workspace_id,
        event: h.kind === 'open' ? 'message.opened' : 'message.clicked',
        message_id: m.id,
        payload: h.kind === 'open' ? { ...base, to: m.to } : base,
        created_at: h.at,
      });
    }
    return { events, outbox };
  };

  const write = async (): Promise<void> => {
    while (held.length) {
      const batch = held.first(BATCH);
      try {
        const { events, outbox } = toEvents(batch, await records([...new Set(batch.map((h) => h.token))]));
        await store.tracking.record(events, outbox);
        held.drop(batch.length);
        if (outbox.length) deps.bus?.publish('outboxed');
      } catch (e) {
        const more = lines.pass('held', Date.now());
        if (more !== null)
          log.warn(
            `tracking: cannot record opens and clicks now (${(e as Error).message}); ${held.length} kept and tried again${more ? ` (${more} more failure(s) since the last line)` : ''}`,
          );
        schedule(1000);
        return;
      }
    }
  };

  const flush = (): Promise<void> => {
    timer = null;
    writing ??= write().finally(() => {
      writing = null;
      if (held.length && !timer) schedule(FLUSH_MS);
    });
    return writing;
  };

  const schedule = (ms: number) => {
    if (timer) return;
    timer = setTimeout(() => void flush(), ms);
    timer.unref();
  };

  return {
    /** Takes a hit after its answer went out. */
    hit(h: TrackedHit): void {
      held.push(h);
      if (held.length > MAX_HELD) {
        held.drop(held.length - MAX_HELD);
        dropped++;
        if (lines.pass('dropped', Date.now()) !== null) {
          log.warn(
            `tracking: ${dropped} opens and clicks dropped, the oldest first (the store has not taken any for a while; ${MAX_HELD} are kept)`,
          );
          dropped = 0;
        }
      }
      if (held.length >= BATCH) void flush();
      else schedule(FLUSH_MS);
    },
    /** Writes what is held now (a stop; tests). */
    async drain(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      await writing;
      if (held.length) await flush();
    },
    now: () => clock.now().toISOString(),
  };
}

export type TrackingRecorder = ReturnType<typeof trackingRecorder>;
