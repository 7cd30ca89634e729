// The Postgres backend: assembles one file per aggregate over the shared plumbing (db.ts): the
// pool, transactions, the schema check, the daemon's look-up cache. Several daemons share one
// database; everything that must hold across them is decided in Postgres. An unreachable database
// is a 503 per operation (never a crash) and the pool reconnects by itself when it returns.
// Long because every aggregate is assembled here, once, over the plumbing they share.
import pg from 'pg';
import { Kysely, PostgresDialect, sql } from '#kysely';
import type { SqlDb } from '../sql/db.js';
import type { Tables } from '../sql/tables.js';
import { sqlDaemons } from '../sql/daemons.js';
import { sqlSuppressions } from '../sql/suppressions.js';
import { sqlRateLimit } from '../sql/rate-limit.js';
import { sqlMessages } from '../sql/messages.js';
import { sqlQueue } from '../sql/queue.js';
import { sqlIdempotency } from '../sql/idempotency.js';
import { sqlTracking } from '../sql/tracking.js';
import { sqlInbox } from '../sql/inbox.js';
import { SvcError } from '../../errors.js';
import type { Log } from '../../log.js';
import { describeStore, type PostgresLocation } from '../location.js';
import type { Store, StoreGroups } from '../types.js';
import type { PgDb, PgLookups } from './db.js';
import { pgAddresses } from './addresses.js';
import { pgDomains } from './domains.js';
import { mapPgError, outcomeUnknown } from './errors.js';
import { pgKeys } from './keys.js';
import { LookupCache, INVALIDATE_CHANNEL } from './lookup-cache.js';
import { PgListener } from './listener.js';
import { isTopic, type Topic } from '../../model/topic.js';
import type { StoreEvents } from '../port/events.js';
import { randomUUID } from 'node:crypto';
import { assertSchemaCurrent, latestVersion, migrate, schemaVersion, settledSchemaVersion, type MigrateResult } from './migrations.js';
import { connectionConfig, createPool } from './pool.js';
import { NEEDS_KEY, NEEDS_KEY_SECRETS, SecretBox, resealAll } from '../secret-box.js';
import { pgTls } from './tls.js';
import { pgEndpoints } from './webhooks.js';
import { sqlWebhooks } from '../sql/webhooks.js';
import { sqlSubscribers } from '../sql/subscribers.js';
import { sqlCampaigns } from '../sql/campaigns.js';
import { sqlSequences } from '../sql/sequences.js';
import { pgWorkspaces } from './workspaces.js';
import { pgPeople } from './people.js';
import { pgSecrets } from './secrets.js';
import { pgLists } from './lists.js';

export { createPool } from './pool.js';

export interface PgOptions {
  log: Log;
  /** Cache key, domain and address look-ups, invalidated by LISTEN/NOTIFY (the daemon; admin commands need no cache). */
  cacheKeys?: boolean;
  /** Apply pending migrations instead of refusing a schema that is behind (`svc serve --migrate`). */
  migrate?: boolean;
}

// The groups are assembled in the constructor; the interface gives the class their types.
export interface PgStore extends StoreGroups {}

/** Work announcements between processes (the bus). */
export const BUS_CHANNEL = 'svc_bus';

export class PgStore implements Store {
  readonly describe: string;
  readonly #pool: pg.Pool;
  readonly #loc: PostgresLocation;
  readonly #migrate: boolean;
  readonly #cache: LookupCache | null;
  /** The process's one LISTEN connection, opened when something first listens. */
  readonly #listener: PgListener;
  readonly events: StoreEvents;
  /** Seals DKIM private keys at rest when the operator gave a key (secrets.ts). */
  readonly #box: SecretBox | null;
  #schemaOk = false;
  #checking: Promise<void> | null = null;
  #active = 0;
  #closing = false;
  #idle: (() => void) | null = null;

  private constructor(loc: PostgresLocation, opts: PgOptions) {
    this.#box = loc.encryptionKey ? new SecretBox(loc.encryptionKey) : null;
    this.#loc = loc;
    this.#pool = createPool(loc, opts.log);
    this.#migrate = opts.migrate ?? false;
    this.describe = describeStore(loc);
    this.#listener = new PgListener(() => new pg.Client(connectionConfig(loc)), opts.log);
    this.#cache = opts.cacheKeys ? new LookupCache(this.#listener) : null;
    this.events = this.#busEvents();
    const db: PgDb = { rows: (t, v, n) => this.#rows(t, v, n), tx: (fn) => this.#tx(fn) };
    const shared = this.#sqlDb();
    const endpoints = pgEndpoints(db);
    const lists = pgLists(db, shared);
    const lookups: PgLookups = {
      ...db,
      cache: this.#cache,
      box: this.#box,
      cached: (key, read, copy) => this.#cached(key, read, copy),
      lookupWrite: (write) => this.#lookupWrite(write),
      senderTx: (fn) => this.#senderTx(fn),
    };
    const groups: StoreGroups = {
      // A database is backed up with its own tools, which see every table at one instant.
      backup: {
        snapshot: async () => {
          throw new SvcError(
            'usage',
            'svc backup is for the file store; back up a Postgres store with pg_dump (docs/operating.md "Backups")',
          );
        },
      },
      daemons: sqlDaemons(shared),
      workspaces: pgWorkspaces(lookups),
      keys: pgKeys(lookups),
      domains: pgDomains(lookups),
      addresses: pgAddresses(lookups),
      tls: pgTls(db, this.#box),
      ...sqlMessages(shared, this.#loc.fenceMs),
      ...sqlQueue(shared),
      endpoints: endpoints.endpoints,
      webhooks: sqlWebhooks(shared, endpoints.source),
      suppressions: sqlSuppressions(shared),
      idempotency: sqlIdempotency(shared),
      rateLimit: sqlRateLimit(shared),
      tracking: sqlTracking(shared),
      campaigns: sqlCampaigns(shared),
      people: pgPeople(db),
      sequences: sqlSequences(shared),
      secrets: pgSecrets(db, this.#box),
      inbox: sqlInbox(shared),
      lists: lists.lists,
      subscribers: sqlSubscribers(shared, lists.source),
    };
    Object.assign(this, groups);
  }

  /**
   * Opens the pool without touching the database: the first operation checks the schema (or
   * migrates it with `migrate`). Callers that must fail fast call `ready()`.
   */
  static create(loc: PostgresLocation, opts: PgOptions): PgStore {
    return new PgStore(loc, opts);
  }

  /** Resolves once the database answers with the schema this build needs. */
  ready(): Promise<void> {
    if (this.#schemaOk) return Promise.resolve();
    this.#checking ??= (async () => {
      // A database svc has never touched is set up by whoever opens it first (under the migration
      // lock, so two at once are safe); an older schema waits for `svc migrate`.
      const version = this.#migrate ? 0 : await schemaVersion(this.#pool);
      if (this.#migrate || version === 0) await migrate(this.#pool, this.#loc.schema);
      else if (version !== (await latestVersion()))
        await assertSchemaCurrent(this.#pool, await settledSchemaVersion(this.#pool, this.#loc.schema));
      await this.#sealKeys();
      this.#schemaOk = true;
    })().catch((e: unknown) => {
      this.#checking = null;
      throw mapPgError(e);
    });
    return this.#checking;
  }

  /**
   * Once keys are encrypted, a process without the key refuses to start (it could not sign). With
   * a key, plaintext keys left from before are sealed now (each one once, whoever gets there first).
   */
  async #sealKeys(): Promise<void> {
    if (!this.#box) {
      const sealed = await this.#pool.query(`SELECT 1 FROM domains WHERE dkim_private_key LIKE 'enc:%' LIMIT 1`);
      if (sealed.rowCount) throw new SvcError('store_locked', NEEDS_KEY);
      const secrets = await this.#pool.query(
        `SELECT 1 FROM tls_identity WHERE key LIKE 'enc:%' UNION ALL SELECT 1 FROM service_secrets WHERE value LIKE 'enc:%' LIMIT 1`,
      );
      if (secrets.rowCount) throw new SvcError('store_locked', NEEDS_KEY_SECRETS);
      return;
    }
    const [other] = (
      await this.#pool.query<{ dkim_private_key: string }>(
        `SELECT dkim_private_key FROM domains WHERE dkim_private_key LIKE 'enc:%' AND dkim_private_key NOT LIKE $1 LIMIT 1`,
        [`enc:v1:${this.#box.id}:%`],
      )
    ).rows;
    if (other) this.#box.open(other.dkim_private_key, 'a DKIM key in this database');
    const plain = (
      await this.#pool.query<{ id: string; dkim_private_key: string }>(
        `SELECT id, dkim_private_key FROM domains WHERE dkim_private_key NOT LIKE 'enc:%'`,
      )
    ).rows;
    for (const r of plain) {
      await this.#pool.query(`UPDATE domains SET dkim_private_key = $2 WHERE id = $1 AND dkim_private_key = $3`, [
        r.id,
        this.#box.seal(r.dkim_private_key),
        r.dkim_private_key,
      ]);
    }
    // The STARTTLS private key and the service's secrets (the tracked-link key) likewise.
    for (const r of (await this.#pool.query<{ key: string }>(`SELECT key FROM tls_identity WHERE key NOT LIKE 'enc:%'`)).rows) {
      await this.#pool.query(`UPDATE tls_identity SET key = $1 WHERE key = $2`, [this.#box.seal(r.key), r.key]);
    }
    for (const r of (
      await this.#pool.query<{ name: string; value: string }>(`SELECT name, value FROM service_secrets WHERE value NOT LIKE 'enc:%'`)
    ).rows) {
      await this.#pool.query(`UPDATE service_secrets SET value = $2 WHERE name = $1 AND value = $3`, [
        r.name,
        this.#box.seal(r.value),
        r.value,
      ]);
    }
  }

  /**
   * `svc store rekey`: every sealed value (DKIM private keys, the STARTTLS private key, the
   * service's secrets) opened with this store's key (none: plaintext) and sealed with `next`, in
   * one transaction. Every daemon must be stopped: one still running would go on sealing with the
   * old key.
   */
  async rekey(next: Buffer): Promise<{ resealed: number; key_id: string }> {
    const to = new SecretBox(next);
    const from = this.#box;
    return this.#tx(async (c) => {
      const domains = (
        await c.query<{ id: string; domain: string; v: string }>(
          `SELECT id, domain, dkim_private_key AS v FROM domains ORDER BY id FOR UPDATE`,
        )
      ).rows;
      const tls = (await c.query<{ v: string }>(`SELECT key AS v FROM tls_identity WHERE id = 1 FOR UPDATE`)).rows;
      const secrets = (await c.query<{ name: string; v: string }>(`SELECT name, value AS v FROM service_secrets ORDER BY name FOR UPDATE`))
        .rows;
      const sealed = resealAll(
        [
          ...domains.map((d) => ({ what: `the DKIM key of ${d.domain}`, value: d.v })),
          ...tls.map((t) => ({ what: 'the STARTTLS private key', value: t.v })),
          ...secrets.map((s) => ({ what: `the service secret ${s.name}`, value: s.v })),
        ],
        from,
        to,
      );
      let i = 0;
      for (const d of domains) await c.query(`UPDATE domains SET dkim_private_key = $2 WHERE id = $1`, [d.id, sealed[i++]]);
      for (const _ of tls) await c.query(`UPDATE tls_identity SET key = $1 WHERE id = 1`, [sealed[i++]]);
      for (const s of secrets) await c.query(`UPDATE service_secrets SET value = $2 WHERE name = $1`, [s.name, sealed[i++]]);
      return { resealed: sealed.length, key_id: to.id };
    });
  }

  /** Applies pending migrations (`svc migrate`). */
  async migrate(): Promise<MigrateResult> {
    try {
      const r = await migrate(this.#pool, this.#loc.schema);
      this.#schemaOk = true;
      return r;
    } catch (e) {
      throw mapPgError(e);
    }
  }

  /**
   * Counts store calls in flight, so close() lets them finish: a request whose client went away
   * is still running its store call when the daemon stops.
   */
  async #tracked<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closing) throw new SvcError('store_unavailable', 'store is closing');
    this.#active++;
    try {
      return await fn();
    } finally {
      if (--this.#active === 0) this.#idle?.();
    }
  }

  #rows<R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string): Promise<R[]> {
    return this.#tracked(async () => {
      if (!this.#schemaOk) await this.ready();
      try {
        return (await this.#pool.query<R>(name ? { name, text, values } : { text, values })).rows;
      } catch (e) {
        throw mapPgError(e);
      }
    });
  }

  /**
   * The shared query source (src/store/sql/) on this pool, with Postgres's side of each dialect
   * difference. Kysely takes a connection from the pool per query, or one for a transaction.
   */
  #sqlDb(): SqlDb {
    const k = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: this.#pool }) });
    // A connection that dies while checked out reports it as an 'error' event as well as in its
    // query; unheard, the event would end the process. The pool drops it when it comes back.
    this.#pool.on('connect', (client) => client.on('error', () => {}));
    const mapped = async <T>(fn: () => Promise<T>): Promise<T> =>
      this.#tracked(async () => {
        if (!this.#schemaOk) await this.ready();
        try {
          return await fn();
        } catch (e) {
          throw mapPgError(e);
        }
      });
    const db: SqlDb = {
      dialect: 'postgres',
      procedure: (p, args) => p.run(db, args),
      run: (fn) => mapped(() => fn(k)),
      tx: (fn) => mapped(() => k.transaction().execute(fn)),
      lockKey: async (q, key) => void (await sql`SELECT pg_advisory_xact_lock(hashtext(${key}))`.execute(q)),
      now: () => sql<string>`now()`,
      outcomeUnknown,
      later: (ms) => sql<string>`now() + ${ms} * interval '1 millisecond'`,
      locksRows: true,
      keepsCounts: false,
      batching: { parallel: 2 },
      relaxCommit: async (q) => void (await sql`SELECT set_config('synchronous_commit', 'off', true)`.execute(q)),
    };
    return db;
  }

  /**
   * The bus between processes on this store: NOTIFY on svc_bus with the topic, this process's tag
   * (its own announcements come back to it and are dropped) and the schema (a notification reaches
   * every session of the database: another deployment in another schema is not ours), heard on
   * the shared listener.
   */
  #busEvents(): StoreEvents {
    const tag = randomUUID();
    const scope = this.#loc.schema ?? '';
    return {
      announce: (topic: Topic) => {
        if (this.#closing) return;
        this.#rows(`SELECT pg_notify('${BUS_CHANNEL}', $1)`, [`${topic} ${tag} ${scope}`], 'bus_notify').catch(() => {});
      },
      listen: (fn) =>
        this.#listener.on(BUS_CHANNEL, (payload) => {
          const [topic, from, schema = ''] = (payload ?? '').split(' ');
          if (from !== tag && schema === scope && isTopic(topic)) fn(topic);
        }),
    };
  }

  /** A cached look-up (the daemon's), or the store's answer, kept unless something changed meanwhile. */
  async #cached<T>(key: string, read: () => Promise<T>, copy?: (v: T) => T): Promise<T> {
    const hit = this.#cache?.get<T>(key);
    if (hit !== undefined) return hit;
    const generation = this.#cache?.generation ?? 0;
    const value = await read();
    this.#cache?.set(key, value, generation, copy);
    return value;
  }

  /** A write that changes cached look-ups (domains, addresses, a plan, a deletion): every daemon's cached entries go, this one's when it returns. */
  async #lookupWrite<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.#cache?.invalidateAll();
    }
  }

  #senderTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#lookupWrite(() =>
      this.#tx(async (c) => {
        const out = await fn(c);
        await c.query(`SELECT pg_notify('${INVALIDATE_CHANNEL}', 'senders')`);
        return out;
      }),
    );
  }

  /** Runs `fn` in one transaction on one connection; errors roll back and come out mapped. */
  #tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#tracked(() => this.#inTx(fn));
  }

  async #inTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    if (!this.#schemaOk) await this.ready();
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (e) {
      throw mapPgError(e);
    }
    // A checked-out connection that dies (a server restart, a cut) reports it as an 'error' event
    // as well as in the query that was running; unheard, the event would end the process.
    let lost: Error | null = null;
    const onError = (e: Error) => void (lost = e);
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      if (!lost) await client.query('ROLLBACK').catch(() => {});
      throw mapPgError(e);
    } finally {
      client.off('error', onError);
      // A dead connection is not put back in the pool.
      client.release(lost ?? undefined);
    }
  }

  async health(): Promise<void> {
    await this.ready();
    try {
      await this.#pool.query('SELECT 1');
    } catch (e) {
      throw mapPgError(e);
    }
  }

  async close(): Promise<void> {
    // Calls in flight finish first, and so do calls that requests already past the closed
    // listeners still make (bounded by the statement timeout); then the pool ends.
    const deadline = Date.now() + this.#loc.statementTimeoutMs + 2_000;
    while (this.#active > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        this.#idle = resolve;
        setTimeout(resolve, 50).unref();
      });
    }
    this.#closing = true;
    await this.#listener.close();
    await this.#pool.end().catch(() => {});
  }
}
