// Postgres: sending domains. DKIM private keys are sealed at rest when the operator gave a key;
// every write tells every daemon (NOTIFY) to drop its cached sender look-ups.
import type pg from 'pg';
import { SvcError } from '../../errors.js';
import { HISTORY_LIMIT, copyDomain, type Domain, type RecordChange, type RecordCheck } from '../../model/domain.js';

const copyOrNull = (d: Domain | null): Domain | null => d && copyDomain(d);
import type { CountKind } from '../../model/quota.js';
import type { CountLimitRefusal } from '../../model/refusal.js';
import type { DomainStore } from '../port/domains.js';
import { iso, type PgLookups, type Row } from './db.js';
import { INVALIDATE_CHANNEL } from './lookup-cache.js';
import { isSealed, NEEDS_KEY, openDomainKey } from '../secret-box.js';

type DomainRow = Row<Domain, 'created_at' | 'verified_at' | 'checked_at'>;

const DOMAIN_COLS =
  'id, workspace_id, domain, status, token, dkim_public_key, dkim_private_key, legacy, dkim_verified, records, history, created_at, verified_at, checked_at';

/**
 * Locks the workspace row (so concurrent adds take turns) and counts its rows of `table`: the
 * count check and the insert that follows hold together. null when under `limit`.
 */
export async function underLimit(
  c: pg.PoolClient,
  workspaceId: string,
  table: 'domains' | 'addresses' | 'memberships',
  kind: CountKind,
  limit: number | null,
): Promise<CountLimitRefusal | null> {
  const ws = await c.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  if (ws.rowCount === 0) throw new SvcError('not_found', 'workspace not found');
  if (limit === null) return null;
  const used = Number(
    (await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId])).rows[0]!.n,
  );
  return used >= limit ? { refused: 'count_limit', kind, limit, used } : null;
}

export function pgDomains(db: PgLookups): DomainStore {
  /** A domain as the service sees it: its DKIM private key opened when it is sealed. */
  const domainOf = (r: DomainRow): Domain => {
    const d: Domain = {
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
    };
    if (!isSealed(d.dkim_private_key)) return d;
    if (!db.box) throw new SvcError('store_locked', NEEDS_KEY);
    return openDomainKey(db.box, d);
  };

  return {
    create: async (d, limit) =>
      db.senderTx(async (c) => {
        const refused = await underLimit(c, d.workspace_id, 'domains', 'domains', limit);
        if (refused) return refused;
        const r = await c.query<DomainRow>(
          `INSERT INTO domains (${DOMAIN_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
           ON CONFLICT (workspace_id, domain) DO NOTHING RETURNING ${DOMAIN_COLS}`,
          [
            d.id,
            d.workspace_id,
            d.domain,
            d.status,
            d.token,
            d.dkim_public_key,
            db.box ? db.box.seal(d.dkim_private_key) : d.dkim_private_key,
            d.legacy,
            d.dkim_verified,
            JSON.stringify(d.records),
            JSON.stringify(d.history),
            d.created_at,
            d.verified_at,
            d.checked_at,
          ],
        );
        if (!r.rows[0]) throw new SvcError('conflict', `domain ${d.domain} is already in this workspace`);
        return domainOf(r.rows[0]);
      }),
    listByWorkspace: async (workspaceId) =>
      (await db.rows<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])).map((r) =>
        domainOf(r),
      ),
    listAll: async () => (await db.rows<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains ORDER BY seq`, [])).map((r) => domainOf(r)),
    get: async (workspaceId, domain) =>
      db.cached(
        `domain:${workspaceId}\0${domain}`,
        async () => {
          const [r] = await db.rows<DomainRow>(
            `SELECT ${DOMAIN_COLS} FROM domains WHERE workspace_id = $1 AND domain = $2`,
            [workspaceId, domain],
            'domain_get',
          );
          return r ? domainOf(r) : null;
        },
        copyOrNull,
      ),
    // Every hand-off reads its sending domain (for the DKIM key).
    byId: async (id) =>
      db.cached(
        `domain-id:${id}`,
        async () => {
          const [r] = await db.rows<DomainRow>(`SELECT ${DOMAIN_COLS} FROM domains WHERE id = $1`, [id], 'domain_by_id');
          return r ? domainOf(r) : null;
        },
        copyOrNull,
      ),
    verifiedBy: async (domain) => {
      const [r] = await db.rows<{ workspace_id: string }>(`SELECT workspace_id FROM domains WHERE domain = $1 AND status = 'verified'`, [
        domain,
      ]);
      return r?.workspace_id ?? null;
    },
    saveCheck: async (id, check) =>
      db.senderTx(async (c) => {
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
          return domainOf(r.rows[0]!);
        } catch (e) {
          // domains_verified_once: another workspace verified this domain first.
          if ((e as { code?: string }).code === '23505')
            throw new SvcError('conflict', `domain ${cur.domain} is already verified by another workspace`);
          throw e;
        }
      }),
    remove: async (workspaceId, id) =>
      db.lookupWrite(
        async () =>
          (
            await db.rows(
              `WITH d AS (DELETE FROM domains WHERE workspace_id = $1 AND id = $2 RETURNING id) SELECT d.id, pg_notify('${INVALIDATE_CHANNEL}', 'senders') FROM d`,
              [workspaceId, id],
            )
          ).length > 0,
      ),
  };
}
