// The daemon's cache of hot look-ups on Postgres: API keys (every request authenticates) and the
// sender's domain and address (every send checks them). A round trip to Postgres for each would cap
// the API far below the file store. Entries are dropped when Postgres says so: a revoke, a workspace,
// domain or address change sends NOTIFY svc_invalidate in the same statement or transaction, and
// every daemon LISTENs (listener.ts); a daemon's own writes also drop its entries at once. The cache
// is used only while that LISTEN connection is up (else every look-up goes to Postgres), and a
// look-up that raced with an invalidation is not kept.
import type { PgListener } from './listener.js';

export const INVALIDATE_CHANNEL = 'svc_invalidate';
const MAX_ENTRIES = 10_000;
// Defence in depth: even with no notification, an entry is re-read after this long.
const TTL_MS = 60_000;

interface Entry {
  value: unknown;
  at: number;
  /** How a reader gets its own copy (structuredClone unless the entry's kind has a cheaper one). */
  copy: (v: never) => unknown;
}

export class LookupCache {
  #entries = new Map<string, Entry>();
  #generation = 0;

  constructor(private readonly listener: PgListener) {
    listener.on(INVALIDATE_CHANNEL, (payload) => this.#invalidate(payload));
    // Anything cached before a reconnect is suspect: notifications may have been missed while down.
    listener.onState(() => this.#invalidate(undefined));
  }

  /** Taken before a look-up; `set` keeps the result only if nothing was invalidated since. */
  get generation(): number {
    return this.#generation;
  }

  /** A copy of the cached value (which may be null: "there is none"), or undefined on a miss. */
  get<T>(key: string): T | undefined {
    if (!this.listener.up) return undefined;
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (Date.now() - e.at > TTL_MS) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.copy(e.value as never) as T;
  }

  set<T>(key: string, value: T, generation: number, copy: (v: T) => T = structuredClone): void {
    if (!this.listener.up || generation !== this.#generation) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value: copy(value), at: Date.now(), copy: copy as (v: never) => unknown });
  }

  /** After a write of this daemon's own: nothing cached before it is used again. */
  invalidateAll(): void {
    this.#invalidate(undefined);
  }

  /** After a write of this daemon's own to one entry (a key revoked): that entry is read again. */
  invalidate(key: string): void {
    this.#invalidate(key);
  }

  #invalidate(payload: string | undefined): void {
    this.#generation++;
    if (payload?.startsWith('key:')) this.#entries.delete(payload);
    else this.#entries.clear();
  }
}
