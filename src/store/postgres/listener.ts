// The one LISTEN connection of a process on Postgres, shared by everything that hears
// notifications: the daemon's look-up cache (svc_invalidate) and the bus (svc_bus). It reconnects
// with backoff when lost; while it is down, those relying on it are told (the cache stops serving,
// the bus falls back on polling, which every worker does anyway).
import type pg from 'pg';
import type { Log } from '../../log.js';

type Handler = (payload: string | undefined) => void;

export class PgListener {
  #client: pg.Client | null = null;
  /** The client is connected: a new channel is LISTENed on it at once (queries run in order). */
  #connected = false;
  #up = false;
  #closed = false;
  #started = false;
  #retry: NodeJS.Timeout | null = null;
  #backoffMs = 250;
  readonly #handlers = new Map<string, Set<Handler>>();
  readonly #state = new Set<(up: boolean) => void>();

  constructor(
    private readonly connect: () => pg.Client,
    private readonly log: Log,
  ) {}

  get up(): boolean {
    return this.#up;
  }

  /** Hears `channel` (LISTEN is issued for every channel with a handler at each (re)connect). */
  on(channel: string, fn: Handler): () => void {
    let set = this.#handlers.get(channel);
    const fresh = !set;
    if (!set) this.#handlers.set(channel, (set = new Set()));
    set.add(fn);
    if (fresh && this.#connected) this.#client?.query(`LISTEN ${channel}`).catch(() => {});
    this.start();
    return () => set.delete(fn);
  }

  /** Told when the connection comes up (true: notifications before may have been missed) or goes down. */
  onState(fn: (up: boolean) => void): void {
    this.#state.add(fn);
  }

  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    void this.#listen();
  }

  #setUp(up: boolean): void {
    this.#up = up;
    for (const fn of this.#state) fn(up);
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = this.connect();
    this.#client = client;
    const lost = (why: string) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#connected = false;
      this.#setUp(false);
      client.end().catch(() => {});
      if (this.#closed) return;
      this.log.warn(`postgres: notifications off until LISTEN reconnects (${why})`);
      this.#retry = setTimeout(() => void this.#listen(), this.#backoffMs);
      this.#backoffMs = Math.min(this.#backoffMs * 2, 10_000);
    };
    client.on('error', (e) => lost(e.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => {
      for (const fn of this.#handlers.get(n.channel) ?? []) fn(n.payload);
    });
    try {
      await client.connect();
      if (this.#client !== client) return;
      this.#connected = true;
      for (const channel of [...this.#handlers.keys()]) await client.query(`LISTEN ${channel}`);
      if (this.#client !== client) return;
      this.#backoffMs = 250;
      this.#setUp(true);
    } catch (e) {
      lost((e as Error).message);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const c = this.#client;
    this.#client = null;
    this.#connected = false;
    this.#up = false;
    await c?.end().catch(() => {});
  }
}
