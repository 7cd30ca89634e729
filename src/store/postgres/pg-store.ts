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
import type { ApiKey, KeyOwner, KeyStore, Store, Workspace, WorkspaceStore } from '../types.js';
import { mapPgError } from './errors.js';
import { KeyCache, INVALIDATE_CHANNEL } from './key-cache.js';
import { assertSchemaCurrent, migrate, type MigrateResult } from './migrations.js';

export interface PgOptions {
  log: Log;
  /** Cache key look-ups, invalidated by LISTEN/NOTIFY (the daemon; admin commands need no cache). */
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

const WS_COLS = 'id, name, plan, created_at';
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
  readonly #cache: KeyCache | null;
  #schemaOk = false;
  #checking: Promise<void> | null = null;

  private constructor(loc: PostgresLocation, opts: PgOptions) {
    this.#loc = loc;
    this.#pool = createPool(loc, opts.log);
    this.#migrate = opts.migrate ?? false;
    this.describe = describeStore(loc);
    this.#cache = opts.cacheKeys ? new KeyCache(() => new pg.Client(connectionConfig(loc)), opts.log) : null;
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
      if (this.#migrate) await migrate(this.#pool, this.#loc.schema);
      else await assertSchemaCurrent(this.#pool);
      this.#schemaOk = true;
    })().catch((e: unknown) => {
      this.#checking = null;
      throw mapPgError(e);
    });
    return this.#checking;
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

  async #rows<R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string): Promise<R[]> {
    if (!this.#schemaOk) await this.ready();
    try {
      return (await this.#pool.query<R>(name ? { name, text, values } : { text, values })).rows;
    } catch (e) {
      throw mapPgError(e);
    }
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
      const cached = this.#cache?.get(hash);
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
      this.#cache?.set(hash, owner, generation);
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

  async health(): Promise<void> {
    await this.ready();
    try {
      await this.#pool.query('SELECT 1');
    } catch (e) {
      throw mapPgError(e);
    }
  }

  async close(): Promise<void> {
    await this.#cache?.close();
    await this.#pool.end().catch(() => {});
  }
}
