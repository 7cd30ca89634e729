// The daemon's cache of API key look-ups on Postgres. Every request authenticates; a round trip to
// Postgres for each one would cap the API far below the file store. Entries are dropped when
// Postgres says so: a revoke or a workspace change sends NOTIFY svc_invalidate in the same
// statement, and every daemon LISTENs. The cache is used only while that LISTEN connection is up
// (else every look-up goes to Postgres), and a look-up that raced with an invalidation is not kept.
import pg from 'pg';
import type { Log } from '../../log.js';
import type { KeyOwner } from '../types.js';

export const INVALIDATE_CHANNEL = 'svc_invalidate';
const MAX_ENTRIES = 10_000;
// Defence in depth: even with no notification, an entry is re-read after this long.
const TTL_MS = 60_000;

interface Entry {
  owner: KeyOwner;
  at: number;
}

export class KeyCache {
  #entries = new Map<string, Entry>();
  #client: pg.Client | null = null;
  #listening = false;
  #generation = 0;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  #backoffMs = 250;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly log: Log,
  ) {}

  start(): void {
    void this.#listen();
  }

  /** Taken before a look-up; `set` keeps the result only if nothing was invalidated since. */
  get generation(): number {
    return this.#generation;
  }

  get(hash: string): KeyOwner | undefined {
    if (!this.#listening) return undefined;
    const e = this.#entries.get(hash);
    if (!e) return undefined;
    if (Date.now() - e.at > TTL_MS) {
      this.#entries.delete(hash);
      return undefined;
    }
    return structuredClone(e.owner);
  }

  set(hash: string, owner: KeyOwner, generation: number): void {
    if (!this.#listening || generation !== this.#generation) return;
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(hash, { owner: structuredClone(owner), at: Date.now() });
  }

  #invalidate(payload: string | undefined): void {
    this.#generation++;
    if (payload?.startsWith('key:')) this.#entries.delete(payload.slice(4));
    else this.#entries.clear();
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = this.connect();
    this.#client = client;
    const lost = (why: string) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#listening = false;
      this.#invalidate(undefined);
      client.end().catch(() => {});
      if (this.#closed) return;
      this.log.warn(`postgres: key cache off until LISTEN reconnects (${why})`);
      this.#retry = setTimeout(() => void this.#listen(), this.#backoffMs);
      this.#backoffMs = Math.min(this.#backoffMs * 2, 10_000);
    };
    client.on('error', (e) => lost(e.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => {
      if (n.channel === INVALIDATE_CHANNEL) this.#invalidate(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${INVALIDATE_CHANNEL}`);
      if (this.#client !== client) return;
      // Anything cached before is suspect: notifications may have been missed while down.
      this.#invalidate(undefined);
      this.#listening = true;
      this.#backoffMs = 250;
    } catch (e) {
      lost((e as Error).message);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listening = false;
    if (this.#retry) clearTimeout(this.#retry);
    const c = this.#client;
    this.#client = null;
    await c?.end().catch(() => {});
  }
}
