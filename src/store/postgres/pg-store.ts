// The Postgres backend: the same Store as the file store, on a pg pool. Several daemons share one
// database; everything that must hold across them is decided in Postgres. An unreachable database
// is a 503 per operation (never a crash) and the pool reconnects by itself when it returns.
import { userInfo } from 'node:os';
import pg from 'pg';
import type { PostgresLocation } from '../../config.js';
import { describeStore } from '../../config.js';
import { SvcError } from '../../errors.js';
import type { Log } from '../../log.js';
import type { Plan } from '../../workspaces/plans.js';
import type { Scope } from '../../auth/scopes.js';
import { HISTORY_LIMIT } from '../types.js';
import { isSealed, NEEDS_KEY, SecretBox } from './secrets.js';
import type { Address, AddressStore, ApiKey, Domain, DomainStore, KeyOwner, KeyStore, RecordChange, RecordCheck, Store, TlsStore, Workspace, WorkspaceStore } from '../types.js';
import { countLimitReached, type CountKind } from '../../workspaces/quota.js';
import { mapPgError } from './errors.js';
import { LookupCache, INVALIDATE_CHANNEL } from './lookup-cache.js';
import { pgWebhookStores } from './pg-webhooks.js';
import { pgMailStores } from './pg-mail.js';
import { assertSchemaCurrent, latestVersion, migrate, schemaVersion, settledSchemaVersion, type MigrateResult } from './migrations.js';

export interface PgOptions {
  log: Log;
  /** Cache key, domain and address look-ups, invalidated by LISTEN/NOTIFY (the daemon; admin commands need no cache). */
  cacheKeys?: boolean;
  /** Apply pending migrations instead of refusing a schema that is behind (`svc serve --migrate`). */
  migrate?: boolean;
}

interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: Date;
}

interface KeyRow {
  id: string;
  workspace_id: string;
  name: string;
  scopes: Scope[];
  prefix: string;
  hash: string;
  created_at: Date;
  revoked_at: Date | null;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const toWorkspace = (r: WorkspaceRow): Workspace => ({ id: r.id, name: r.name, plan: r.plan, created_at: r.created_at.toISOString() });
const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  workspace_id: r.workspace_id,
  name: r.name,
  scopes: r.scopes,
  prefix: r.prefix,
  hash: r.hash,
  created_at: r.created_at.toISOString(),
  revoked_at: iso(r.revoked_at),
});

interface DomainRow extends Omit<Domain, 'created_at' | 'verified_at' | 'checked_at'> {
  created_at: Date;
  verified_at: Date | null;
  checked_at: Date | null;
}

interface AddressRow extends Omit<Address, 'created_at'> {
  created_at: Date;
}

const toDomain = (r: DomainRow): Domain => ({
  id: r.id,
  workspace_id: r.workspace_id,
  domain: r.domain,
  status: r.status,
  token: r.token,
  dkim_public_key: r.dkim_public_key,
  dkim_private_key: r.dkim_private_key,
  legacy: r.legacy,
  dkim_verified: r.dkim_verified,
  records: r.records as RecordCheck[] | null,
  history: r.history as RecordChange[],
  created_at: r.created_at.toISOString(),
  verified_at: iso(r.verified_at),
  checked_at: iso(r.checked_at),
});

const toAddress = (r: AddressRow): Address => ({
  id: r.id,
  workspace_id: r.workspace_id,
  domain_id: r.domain_id,
  address: r.address,
  status: r.status,
  created_at: r.created_at.toISOString(),
});

const WS_COLS = 'id, name, plan, created_at';
const DOMAIN_COLS = 'id, workspace_id, domain, status, token, dkim_public_key, dkim_private_key, legacy, dkim_verified, records, history, created_at, verified_at, checked_at';
const ADDRESS_COLS = 'id, workspace_id, domain_id, address, status, created_at';
const KEY_COLS = 'id, workspace_id, name, scopes, prefix, hash, created_at, revoked_at';

/**
 * Like libpq: a URL without a user connects as PGUSER, else as the operating-system user (pg would
 * send no user at all when $USER is unset, as it is under some service managers).
 */
function withDefaultUser(url: string): string {
  const u = new URL(url);
  if (u.username) return url;
  let user = process.env.PGUSER;
  try {
    user ||= userInfo().username;
  } catch {
    return url;
  }
  u.username = encodeURIComponent(user);
  return u.toString();
}

function connectionConfig(loc: PostgresLocation): pg.ClientConfig {
  return {
    connectionString: withDefaultUser(loc.url),
    connectionTimeoutMillis: loc.connectTimeoutMs,
    keepAlive: true,
    ...(loc.schema ? { options: `-c search_path=${loc.schema}` } : {}),
  };
}

export function createPool(loc: PostgresLocation, log: Log): pg.Pool {
  const pool = new pg.Pool({
    ...connectionConfig(loc),
    max: loc.poolSize,
    statement_timeout: loc.statementTimeoutMs,
    // A server that stops answering mid-query (network cut) must not hang a request for ever.
    query_timeout: loc.statementTimeoutMs + 1_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that dies (server restart) is reported here; without a handler it would
  // end the process. The pool replaces it on the next checkout.
  pool.on('error', (e) => log.warn(`postgres: idle connection lost (${e.message})`));
  return pool;
}

export class PgStore implements Store {
  readonly describe: string;
  readonly #pool: pg.Pool;
  readonly #loc: PostgresLocation;
  readonly #migrate: boolean;
  readonly #cache: LookupCache | null;
  /** Seals DKIM private keys at rest when the operator gave a key (secrets.ts). */
  readonly #box: SecretBox | null;
  #schemaOk = false;
  #checking: Promise<void> | null = null;
  #active = 0;
  #closing = false;
  #idle: (() => void) | null = null;

  readonly messages;
  readonly queue;
  readonly outbox;
  readonly endpoints;
  readonly webhooks;
  readonly suppressions;
  readonly idempotency;
  readonly rateLimit;
  readonly usage;

  private constructor(loc: PostgresLocation, opts: PgOptions) {
    this.#box = loc.encryptionKey ? new SecretBox(loc.encryptionKey) : null;
    const mail = pgMailStores({ rows: (t, v, n) => this.#rows(t, v, n), tx: (fn) => this.#tx(fn) });
    this.messages = mail.messages;
    this.queue = mail.queue;
    this.outbox = mail.outbox;
    const hooks = pgWebhookStores({ rows: (t, v, n) => this.#rows(t, v, n), tx: (fn) => this.#tx(fn) });
    this.endpoints = hooks.endpoints;
    this.webhooks = hooks.webhooks;
    this.suppressions = mail.suppressions;
    this.idempotency = mail.idempotency;
    this.rateLimit = mail.rateLimit;
    this.usage = mail.usage;
    this.#loc = loc;
    this.#pool = createPool(loc, opts.log);
    this.#migrate = opts.migrate ?? false;
    this.describe = describeStore(loc);
    this.#cache = opts.cacheKeys ? new LookupCache(() => new pg.Client(connectionConfig(loc)), opts.log) : null;
    this.#cache?.start();
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
      else if (version !== (await latestVersion())) await assertSchemaCurrent(this.#pool, await settledSchemaVersion(this.#pool, this.#loc.schema));
      await this.#sealKeys();
      this.#schemaOk = true;
    })().catch((e: unknown) => {
      this.#checking = null;
      throw mapPgError(e);
    });
    return this.#checking;
  }

  /** A domain as the service sees it: its DKIM private key opened when it is sealed. */
  #domain(r: DomainRow): Domain {
    const d = toDomain(r);
    if (!isSealed(d.dkim_private_key)) return d;
    if (!this.#box) throw new SvcError('store_locked', NEEDS_KEY);
    return { ...d, dkim_private_key: this.#box.open(d.dkim_private_key, `the DKIM key of ${d.domain}`) };
  }

  /**
   * Once keys are encrypted, a process without the key refuses to start (it could not sign). With
   * a key, plaintext keys left from before are sealed now (each one once, whoever gets there first).
   */
  async #sealKeys(): Promise<void> {
    if (!this.#box) {
      const sealed = await this.#pool.query(`SELECT 1 FROM domains WHERE dkim_private_key LIKE 'enc:%' LIMIT 1`);
      if (sealed.rowCount) throw new SvcError('store_locked', NEEDS_KEY);
      return;
    }
    const [other] = (await this.#pool.query<{ dkim_private_key: string }>(`SELECT dkim_private_key FROM domains WHERE dkim_private_key LIKE 'enc:%' AND dkim_private_key NOT LIKE $1 LIMIT 1`, [`enc:v1:${this.#box.id}:%`])).rows;
    if (other) this.#box.open(other.dkim_private_key, 'a DKIM key in this database');
    const plain = (await this.#pool.query<{ id: string; dkim_private_key: string }>(`SELECT id, dkim_private_key FROM domains WHERE dkim_private_key NOT LIKE 'enc:%'`)).rows;
    for (const r of plain) {
      await this.#pool.query(`UPDATE domains SET dkim_private_key = $2 WHERE id = $1 AND dkim_private_key = $3`, [r.id, this.#box.seal(r.dkim_private_key), r.dkim_private_key]);
    }
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

  /** A cached look-up (the daemon's), or the store's answer, kept unless something changed meanwhile. */
  async #cached<T>(key: string, read: () => Promise<T>): Promise<T> {
    const hit = this.#cache?.get<T>(key);
    if (hit !== undefined) return hit;
    const generation = this.#cache?.generation ?? 0;
    const value = await read();
    this.#cache?.set(key, value, generation);
    return value;
  }

  /** A write to domains or addresses: every daemon's cached sender look-ups go (this one's at once). */
  async #senderWrite<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.#cache?.invalidateAll();
    }
  }

  #senderTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#senderWrite(() =>
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
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw mapPgError(e);
    } finally {
      client.release();
    }
  }

  /**
   * Locks the workspace row (so concurrent adds take turns) and refuses when its count of `table`
   * rows is at `limit`: the count check and the insert that follows hold together.
   */
  async #underLimit(c: pg.PoolClient, workspaceId: string, table: 'domains' | 'addresses', kind: CountKind, limit: number | null): Promise<void> {
    const ws = await c.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    if (ws.rowCount === 0) throw new SvcError('not_found', 'workspace not found');
    if (limit === null) return;
    const used = Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId])).rows[0]!.n);
    if (used >= limit) throw countLimitReached(kind, limit, used);
  }

  readonly workspaces: WorkspaceStore = {
    create: async (ws) => {
      try {
        const [r] = await this.#rows<WorkspaceRow>(`INSERT INTO workspaces (${WS_COLS}) VALUES ($1, $2, $3, $4) RETURNING ${WS_COLS}`, [ws.id, ws.name, ws.plan, ws.created_at]);
        return toWorkspace(r!);
      } catch (e) {
        if (e instanceof SvcError && e.kind === 'conflict') throw new SvcError('conflict', `workspace '${ws.name}' already exists`);
        throw e;
      }
    },
    list: async () => (await this.#rows<WorkspaceRow>(`SELECT ${WS_COLS} FROM workspaces ORDER BY seq`, [])).map(toWorkspace),
    getByName: async (name) => {
      const [r] = await this.#rows<WorkspaceRow>(`SELECT ${WS_COLS} FROM workspaces WHERE name = $1`, [name], 'ws_by_name');
      return r ? toWorkspace(r) : null;
    },
    setPlan: async (id, plan) => {
      // The NOTIFY (sent at commit) drops every daemon's cached copies of the workspace.
      const [r] = await this.#rows<WorkspaceRow>(
        `WITH u AS (UPDATE workspaces SET plan = $2 WHERE id = $1 RETURNING ${WS_COLS})
         SELECT u.*, pg_notify('${INVALIDATE_CHANNEL}', 'ws:' || u.id) FROM u`,
        [id, plan],
      );
      return r ? toWorkspace(r) : null;
    },
  };

  readonly keys: KeyStore = {
    create: async (k) => {
      try {
        const [r] = await this.#rows<KeyRow>(`INSERT INTO api_keys (${KEY_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${KEY_COLS}`, [
          k.id,
          k.workspace_id,
          k.name,
          k.scopes,
          k.prefix,
          k.hash,
          k.created_at,
          k.revoked_at,
        ]);
        return toKey(r!);
      } catch (e) {
        if (e instanceof SvcError && e.kind === 'not_found') throw new SvcError('not_found', 'workspace not found');
        if (e instanceof SvcError && e.kind === 'conflict') throw new SvcError('conflict', 'key already exists');
        throw e;
      }
    },
    listByWorkspace: async (workspaceId) => (await this.#rows<KeyRow>(`SELECT ${KEY_COLS} FROM api_keys WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])).map(toKey),
    findByHash: async (hash): Promise<KeyOwner | null> => {
      const cached = this.#cache?.get<KeyOwner>(`key:${hash}`);
      if (cached) return cached;
      const generation = this.#cache?.generation ?? 0;
      // The hot path of every API request that misses the cache: one prepared statement.
      const [r] = await this.#rows<KeyRow & { w_name: string; w_plan: Plan; w_created_at: Date }>(
        `SELECT k.id, k.workspace_id, k.name, k.scopes, k.prefix, k.hash, k.created_at, k.revoked_at,
                w.name AS w_name, w.plan AS w_plan, w.created_at AS w_created_at
           FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
          WHERE k.hash = $1`,
        [hash],
        'key_by_hash',
      );
      if (!r) return null;
      const owner = { key: toKey(r), workspace: { id: r.workspace_id, name: r.w_name, plan: r.w_plan, created_at: r.w_created_at.toISOString() } };
      this.#cache?.set(`key:${hash}`, owner, generation);
      return owner;
    },
    revoke: async (workspaceId, id, at) => {
      // The NOTIFY (sent at commit) drops the key from every daemon's cache.
      const [r] = await this.#rows<KeyRow>(
        `WITH u AS (UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE workspace_id = $1 AND id = $2 RETURNING ${KEY_COLS})
         SELECT u.*, pg_notify('${INVALIDATE_CHANNEL}', 'key:' || u.hash) FROM u`,
        [workspaceId, id, at],
      );
      return r ? toKey(r) : null;
    },
  };

  readonly domains: DomainStore = {
    create: async (d, limit) =>
      this.#senderTx(async (c) => {
        await this.#underLimit(c, d.workspace_id, 'domains', 'domains', limit);
        const r = await c.query<DomainRow>(
          `INSERT INTO domains (${DOMAIN_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
           ON CONFLICT (workspace_id, domain) DO NOTHING RETURNING ${DOMAIN_COLS}`,
          [d.id, d.workspace_id, d.domain, d.status, d.token, d.dkim_public_key, this.#box ? this.#box.seal(d.dkim_private_key) : d.dkim_private_key, d.legacy, d.dkim_verified, JSON.stringify(d.records), JSON.stringify(d.history), d.created_at, d.verified_at, d.checked_at],
        );
        if (!r.rows[0]) throw new SvcError('conflict', `domain ${d.domain} is already in this workspace`);
        return this.#domain(r.rows[0]);
      }),
    listByWorkspace: async (workspaceId) => (await this.#rows<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])).map((r) => this.#domain(r)),
    listAll: async () => (await this.#rows<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains ORDER BY seq`, [])).map((r) => this.#domain(r)),
    get: async (workspaceId, domain) =>
      this.#cached(`domain:${workspaceId}\0${domain}`, async () => {
        const [r] = await this.#rows<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains WHERE workspace_id = $1 AND domain = $2`, [workspaceId, domain], 'domain_get');
        return r ? this.#domain(r) : null;
      }),
    // Every hand-off reads its sending domain (for the DKIM key).
    byId: async (id) =>
      this.#cached(`domain-id:${id}`, async () => {
        const [r] = await this.#rows<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains WHERE id = $1`, [id], 'domain_by_id');
        return r ? this.#domain(r) : null;
      }),
    verifiedBy: async (domain) => {
      const [r] = await this.#rows<{ workspace_id: string }>(`SELECT workspace_id FROM domains WHERE domain = $1 AND status = 'verified'`, [domain]);
      return r?.workspace_id ?? null;
    },
    saveCheck: async (id, check) =>
      this.#senderTx(async (c) => {
        const cur = (await c.query<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains WHERE id = $1 FOR UPDATE`, [id])).rows[0];
        if (!cur) throw new SvcError('not_found', 'domain not found');
        const verifyNow = check.verify && cur.status !== 'verified';
        const history = [...(cur.history as RecordChange[]), ...check.changes].slice(-HISTORY_LIMIT);
        try {
          const r = await c.query<DomainRow>(
            `UPDATE domains SET records = $2, history = $3, dkim_verified = $4, checked_at = $5,
                    status = CASE WHEN $6 THEN 'verified' ELSE status END,
                    verified_at = CASE WHEN $6 THEN $5 ELSE verified_at END
              WHERE id = $1 RETURNING ${DOMAIN_COLS}`,
            [id, JSON.stringify(check.records), JSON.stringify(history), check.dkim_verified, check.checked_at, verifyNow],
          );
          return this.#domain(r.rows[0]!);
        } catch (e) {
          // domains_verified_once: another workspace verified this domain first.
          if ((e as { code?: string }).code === '23505') throw new SvcError('conflict', `domain ${cur.domain} is already verified by another workspace`);
          throw e;
        }
      }),
    remove: async (workspaceId, id) =>
      this.#senderWrite(
        async () => (await this.#rows(`WITH d AS (DELETE FROM domains WHERE workspace_id = $1 AND id = $2 RETURNING id) SELECT d.id, pg_notify('${INVALIDATE_CHANNEL}', 'senders') FROM d`, [workspaceId, id])).length > 0,
      ),
  };

  readonly addresses: AddressStore = {
    create: async (a, limit) =>
      this.#senderTx(async (c) => {
        await this.#underLimit(c, a.workspace_id, 'addresses', 'addresses', limit);
        const dom = await c.query('SELECT 1 FROM domains WHERE id = $1 AND workspace_id = $2', [a.domain_id, a.workspace_id]);
        if (dom.rowCount === 0) throw new SvcError('not_found', 'domain not found');
        const r = await c.query<AddressRow>(
          `INSERT INTO addresses (${ADDRESS_COLS}) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (workspace_id, address) DO NOTHING RETURNING ${ADDRESS_COLS}`,
          [a.id, a.workspace_id, a.domain_id, a.address, a.status, a.created_at],
        );
        if (!r.rows[0]) throw new SvcError('conflict', `address ${a.address} is already registered`);
        return toAddress(r.rows[0]);
      }),
    listByWorkspace: async (workspaceId) => (await this.#rows<AddressRow>(`SELECT ${ADDRESS_COLS} FROM addresses WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])).map(toAddress),
    get: async (workspaceId, address) =>
      this.#cached(`address:${workspaceId}\0${address}`, async () => {
        const [r] = await this.#rows<AddressRow>(`SELECT ${ADDRESS_COLS} FROM addresses WHERE workspace_id = $1 AND address = $2`, [workspaceId, address], 'address_get');
        return r ? toAddress(r) : null;
      }),
    setStatus: async (workspaceId, id, status) =>
      this.#senderWrite(async () => {
        const [r] = await this.#rows<AddressRow>(
          `WITH u AS (UPDATE addresses SET status = $3 WHERE workspace_id = $1 AND id = $2 RETURNING ${ADDRESS_COLS})
           SELECT u.*, pg_notify('${INVALIDATE_CHANNEL}', 'senders') FROM u`,
          [workspaceId, id, status],
        );
        return r ? toAddress(r) : null;
      }),
    remove: async (workspaceId, id) =>
      this.#senderWrite(
        async () => (await this.#rows(`WITH d AS (DELETE FROM addresses WHERE workspace_id = $1 AND id = $2 RETURNING id) SELECT d.id, pg_notify('${INVALIDATE_CHANNEL}', 'senders') FROM d`, [workspaceId, id])).length > 0,
      ),
  };

  readonly tls: TlsStore = {
    get: async () => {
      const [r] = await this.#rows<{ cert: string; key: string; created_at: Date }>(`SELECT cert, key, created_at FROM tls_identity WHERE id = 1`, []);
      return r ? { cert: r.cert, key: r.key, created_at: r.created_at.toISOString() } : null;
    },
    saveIfAbsent: async (t) => {
      await this.#rows(`INSERT INTO tls_identity (id, cert, key, created_at) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING`, [t.cert, t.key, t.created_at]);
      return (await this.tls.get())!;
    },
  };

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
    await this.#cache?.close();
    await this.#pool.end().catch(() => {});
  }
}
