// Postgres: newsletter lists (the control plane's, as svc.json holds them in the embedded store;
// their subscribers are the shared sql/subscribers.ts). A list's count is counted from its
// subscribers; a removed list is marked, and its subscribers deleted in batches by sweep.
import { sql } from '#kysely';
import type { List, ListWithCount } from '../../model/list.js';
import type { ListStore } from '../port/lists.js';
import type { SqlDb } from '../sql/db.js';
import { sweepSubscribers, type ListSource } from '../sql/subscribers.js';
import type { PgDb, Row } from './db.js';

type ListRow = Row<List, 'created_at' | 'updated_at'> & { subscriber_count: string };

const LIST_COLS = 'id, workspace_id, name, description, from_name, from_address, reply_to, double_opt_in, created_at, updated_at';
const COUNTED = `SELECT ${LIST_COLS.split(', ')
  .map((c) => `l.${c}`)
  .join(', ')}, (SELECT count(*) FROM subscribers s WHERE s.list_id = l.id) AS subscriber_count FROM lists l`;

const toList = (r: ListRow): ListWithCount => ({
  id: r.id,
  workspace_id: r.workspace_id,
  name: r.name,
  description: r.description,
  from_name: r.from_name,
  from_address: r.from_address,
  reply_to: r.reply_to,
  double_opt_in: r.double_opt_in,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  subscriber_count: Number(r.subscriber_count),
});

export function pgLists(db: PgDb, shared: SqlDb): { lists: ListStore; source: ListSource } {
  const getList = async (workspaceId: string, id: string) =>
    (await db.rows<ListRow>(`${COUNTED} WHERE l.workspace_id = $1 AND l.id = $2 AND NOT l.deleted`, [workspaceId, id]))[0];
  const lists: ListStore = {
    create: async (l) => {
      await db.rows(`INSERT INTO lists (${LIST_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
        l.id,
        l.workspace_id,
        l.name,
        l.description,
        l.from_name,
        l.from_address,
        l.reply_to,
        l.double_opt_in,
        l.created_at,
        l.updated_at,
      ]);
      return { ...l, subscriber_count: 0 };
    },
    listByWorkspace: async (workspaceId) =>
      (await db.rows<ListRow>(`${COUNTED} WHERE l.workspace_id = $1 AND NOT l.deleted ORDER BY l.seq`, [workspaceId])).map(toList),
    get: async (workspaceId, id) => {
      const r = await getList(workspaceId, id);
      return r ? toList(r) : null;
    },
    update: async (workspaceId, id, patch, at) => {
      const fields = Object.entries(patch).filter(([, v]) => v !== undefined);
      const sets = fields.map(([k], i) => `${k} = $${i + 4}`);
      const done = await db.rows(
        `UPDATE lists SET ${[...sets, 'updated_at = $3'].join(', ')} WHERE workspace_id = $1 AND id = $2 AND NOT deleted RETURNING id`,
        [workspaceId, id, at, ...fields.map(([, v]) => v)],
      );
      if (!done.length) return null;
      return toList((await getList(workspaceId, id))!);
    },
    remove: async (workspaceId, id) =>
      (await db.rows(`UPDATE lists SET deleted = true WHERE workspace_id = $1 AND id = $2 AND NOT deleted RETURNING id`, [workspaceId, id]))
        .length > 0,
    sweep: async () => {
      let removed = 0;
      for (const { id } of await db.rows<{ id: string }>(`SELECT id FROM lists WHERE deleted ORDER BY seq`, [])) {
        removed += await sweepSubscribers(shared, id);
        await db.rows(`DELETE FROM lists WHERE id = $1 AND deleted`, [id]);
      }
      return removed;
    },
  };

  // The shared subscribers' view of these lists, in their transaction.
  const source: ListSource = {
    live: async (q, workspaceId) => {
      const { rows } = await sql<{
        id: string;
        name: string;
      }>`SELECT id, name FROM lists WHERE workspace_id = ${workspaceId} AND NOT deleted`.execute(q);
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
  return { lists, source };
}
