// src/store/postgres/: the Postgres store: one file per aggregate, assembled by pg-store.ts over
// the pool and plumbing (db.ts, pool.ts, listener.ts) and migrations/.
//
// Postgres: sender addresses; every write tells every daemon (NOTIFY) to drop its cached look-ups.
import { SvcError } from '../../errors.js';
import type { Address } from '../../model/address.js';
import type { AddressStore } from '../port/addresses.js';
import type { PgLookups, Row } from './db.js';
import { underLimit } from './domains.js';
import { INVALIDATE_CHANNEL } from './lookup-cache.js';

type AddressRow = Row<Address, 'created_at'>;

const ADDRESS_COLS = 'id, workspace_id, domain_id, address, status, created_at';
const toAddress = (r: AddressRow): Address => ({
  id: r.id,
  workspace_id: r.workspace_id,
  domain_id: r.domain_id,
  address: r.address,
  status: r.status,
  created_at: r.created_at.toISOString(),
});

export function pgAddresses(db: PgLookups): AddressStore {
  return {
    create: async (a, limit) =>
      db.senderTx(async (c) => {
        const refused = await underLimit(c, a.workspace_id, 'addresses', 'addresses', limit);
        if (refused) return refused;
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
    listByWorkspace: async (workspaceId) =>
      (await db.rows<AddressRow>(`SELECT ${ADDRESS_COLS} FROM addresses WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])).map(
        toAddress,
      ),
    get: async (workspaceId, address) =>
      db.cached(`address:${workspaceId}\0${address}`, async () => {
        const [r] = await db.rows<AddressRow>(
          `SELECT ${ADDRESS_COLS} FROM addresses WHERE workspace_id = $1 AND address = $2`,
          [workspaceId, address],
          'address_get',
        );
        return r ? toAddress(r) : null;
      }),
    everywhere: async (address) =>
      db.cached(`address:*\0${address}`, async () =>
        (
          await db.rows<AddressRow>(
            `SELECT ${ADDRESS_COLS} FROM addresses WHERE address = $1 ORDER BY created_at`,
            [address],
            'address_everywhere',
          )
        ).map(toAddress),
      ),
    setStatus: async (workspaceId, id, status) =>
      db.lookupWrite(async () => {
        const [r] = await db.rows<AddressRow>(
          `WITH u AS (UPDATE addresses SET status = $3 WHERE workspace_id = $1 AND id = $2 RETURNING ${ADDRESS_COLS})
           SELECT u.*, pg_notify('${INVALIDATE_CHANNEL}', 'senders') FROM u`,
          [workspaceId, id, status],
        );
        return r ? toAddress(r) : null;
      }),
    remove: async (workspaceId, id) =>
      db.lookupWrite(
        async () =>
          (
            await db.rows(
              `WITH d AS (DELETE FROM addresses WHERE workspace_id = $1 AND id = $2 RETURNING id) SELECT d.id, pg_notify('${INVALIDATE_CHANNEL}', 'senders') FROM d`,
              [workspaceId, id],
            )
          ).length > 0,
      ),
  };
}
