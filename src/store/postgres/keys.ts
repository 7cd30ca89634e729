// Postgres: API keys. The look-up every request makes is one prepared statement, cached in the
// daemon; a revocation tells every daemon (NOTIFY) to drop the key.
import { SvcError } from '../../errors.js';
import type { ApiKey, KeyOwner } from '../../model/key.js';
import type { Plan } from '../../model/workspace.js';
import type { KeyStore } from '../port/keys.js';
import { iso, type PgLookups, type Row } from './db.js';
import { INVALIDATE_CHANNEL } from './lookup-cache.js';

type KeyRow = Row<ApiKey, 'created_at' | 'revoked_at'>;

const KEY_COLS = 'id, workspace_id, name, scopes, prefix, hash, created_at, revoked_at';
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

export function pgKeys(db: PgLookups): KeyStore {
  return {
    create: async (k) => {
      try {
        const [r] = await db.rows<KeyRow>(
          `INSERT INTO api_keys (${KEY_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${KEY_COLS}`,
          [k.id, k.workspace_id, k.name, k.scopes, k.prefix, k.hash, k.created_at, k.revoked_at],
        );
        return toKey(r!);
      } catch (e) {
        if (e instanceof SvcError && e.kind === 'not_found') throw new SvcError('not_found', 'workspace not found');
        if (e instanceof SvcError && e.kind === 'conflict') throw new SvcError('conflict', 'key already exists');
        throw e;
      }
    },
    listByWorkspace: async (workspaceId) =>
      (await db.rows<KeyRow>(`SELECT ${KEY_COLS} FROM api_keys WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])).map(toKey),
    findByHash: async (hash): Promise<KeyOwner | null> => {
      const cached = db.cache?.get<KeyOwner>(`key:${hash}`);
      if (cached) return cached;
      const generation = db.cache?.generation ?? 0;
      // The hot path of every API request that misses the cache: one prepared statement.
      const [r] = await db.rows<KeyRow & { w_name: string; w_plan: Plan; w_created_at: Date }>(
        `SELECT k.id, k.workspace_id, k.name, k.scopes, k.prefix, k.hash, k.created_at, k.revoked_at,
                w.name AS w_name, w.plan AS w_plan, w.created_at AS w_created_at
           FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
          WHERE k.hash = $1`,
        [hash],
        'key_by_hash',
      );
      if (!r) return null;
      const owner = {
        key: toKey(r),
        workspace: { id: r.workspace_id, name: r.w_name, plan: r.w_plan, created_at: r.w_created_at.toISOString() },
      };
      db.cache?.set(`key:${hash}`, owner, generation);
      return owner;
    },
    revoke: async (workspaceId, id, at) => {
      // The NOTIFY (sent at commit) drops the key from every daemon's cache; this daemon's own
      // entry goes now, before the answer, not when its notification comes back (a revoked key
      // authenticated for a moment after "revoked": seen in the web app's test).
      const [r] = await db.rows<KeyRow>(
        `WITH u AS (UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE workspace_id = $1 AND id = $2 RETURNING ${KEY_COLS})
         SELECT u.*, pg_notify('${INVALIDATE_CHANNEL}', 'key:' || u.hash) FROM u`,
        [workspaceId, id, at],
      );
      if (r) db.cache?.invalidate(`key:${r.hash}`);
      return r ? toKey(r) : null;
    },
  };
}
