// Postgres: newsletter lists and subscribers (migration 0021). A list's count is counted from its
// rows; the contacts quota is checked under the workspace's row lock, so two racing subscribes
// cannot both take the last contact; a removed list is marked and its subscribers deleted in
// batches by sweep.
import type pg from 'pg';
import { SvcError } from '../../errors.js';
import type { List, ListWithCount, Subscriber, SubscriberUpdate } from '../../model/list.js';
import type { CountLimit } from '../../model/quota.js';
import type { CountLimitRefusal } from '../../model/refusal.js';
import type { ListStore, SubscriberStore } from '../port/lists.js';
import type { PgDb, Row } from './db.js';

type ListRow = Row<List, 'created_at' | 'updated_at'> & { subscriber_count: string };
type SubscriberRow = Omit<Row<Subscriber, 'created_at' | 'updated_at'>, 'confirm_sent_at'> & { confirm_sent_at: Date | null };

const LIST_COLS = 'id, workspace_id, name, description, from_name, from_address, reply_to, double_opt_in, created_at, updated_at';
const COUNTED = `SELECT ${LIST_COLS.split(', ')
  .map((c) => `l.${c}`)
  .join(', ')}, (SELECT count(*) FROM subscribers s WHERE s.list_id = l.id) AS subscriber_count FROM lists l`;
const SUB_COLS = 'id, list_id, workspace_id, email, name, status, unsubscribe_token, tags, created_at, updated_at, confirm_sent_at';
/** Subscribers removed per statement by sweep. */
const SWEEP_BATCH = 5000;

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
const toSubscriber = (r: SubscriberRow): Subscriber => ({
  id: r.id,
  list_id: r.list_id,
  workspace_id: r.workspace_id,
  email: r.email,
  name: r.name,
  status: r.status,
  unsubscribe_token: r.unsubscribe_token,
  tags: r.tags,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  ...(r.confirm_sent_at ? { confirm_sent_at: r.confirm_sent_at.toISOString() } : {}),
});

export function pgLists(db: PgDb): { lists: ListStore; subscribers: SubscriberStore } {
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
        for (;;) {
          const gone = await db.rows(
            `DELETE FROM subscribers WHERE id IN (SELECT id FROM subscribers WHERE list_id = $1 LIMIT ${SWEEP_BATCH}) RETURNING 1`,
            [id],
          );
          removed += gone.length;
          if (gone.length < SWEEP_BATCH) break;
        }
        await db.rows(`DELETE FROM lists WHERE id = $1 AND deleted`, [id]);
      }
      return removed;
    },
  };

  const subscribers: SubscriberStore = {
    upsert: async (s, update, limit) =>
      db.tx(async (c) => {
        const r = await upsertRows(c, s.workspace_id, s.list_id, [{ s, update }], limit);
        return 'refused' in r ? r : { subscriber: toSubscriber(r[0]!), created: r[0]!.inserted };
      }),
    upsertMany: async (workspaceId, listId, rows, limit) =>
      db.tx(async (c) => {
        const r = await upsertRows(c, workspaceId, listId, rows, limit);
        if ('refused' in r) return r;
        const created = r.filter((x) => x.inserted).length;
        return { created, updated: r.length - created };
      }),
    newContacts: async (workspaceId, emails) => db.tx(async (c) => emails.length - (await knownOf(c, workspaceId, emails))),
    list: async (workspaceId, listId, q) => {
      const where = `s.list_id = $1 AND s.workspace_id = $2${q.status ? ' AND s.status = $3' : ''}`;
      const args: unknown[] = q.status ? [listId, workspaceId, q.status] : [listId, workspaceId];
      const [data, total] = await Promise.all([
        db.rows<SubscriberRow>(
          `SELECT ${SUB_COLS.split(', ')
            .map((c) => `s.${c}`)
            .join(', ')} FROM subscribers s WHERE ${where} ORDER BY s.seq LIMIT ${q.limit} OFFSET ${q.offset}`,
          args,
        ),
        db.rows<{ n: string }>(`SELECT count(*) AS n FROM subscribers s WHERE ${where}`, args),
      ]);
      return { data: data.map(toSubscriber), total: Number(total[0]!.n) };
    },
    get: async (workspaceId, listId, id) => {
      const [r] = await db.rows<SubscriberRow>(`SELECT ${SUB_COLS} FROM subscribers WHERE workspace_id = $1 AND list_id = $2 AND id = $3`, [
        workspaceId,
        listId,
        id,
      ]);
      return r ? toSubscriber(r) : null;
    },
    // A list being removed is marked first (its subscribers go in batches after): none of it is active.
    active: async (workspaceId, refs) =>
      new Set(
        (
          await db.rows<{ id: string }>(
            `SELECT s.id FROM subscribers s JOIN lists l ON l.id = s.list_id
              WHERE s.workspace_id = $1 AND s.id = ANY($2::text[]) AND s.status = 'active' AND NOT l.deleted`,
            [workspaceId, refs.map((r) => r.id)],
            'subscribers_active',
          )
        ).map((r) => r.id),
      ),
    // A command-line lookup: the list's rows, the prefix checked on each.
    idsWithPrefix: async (workspaceId, listId, prefix, limit) =>
      (
        await db.rows<{ id: string }>(
          `SELECT id FROM subscribers WHERE workspace_id = $1 AND list_id = $2 AND starts_with(id, $3) LIMIT $4`,
          [workspaceId, listId, prefix, limit],
          'subscriber_ids_prefix',
        )
      ).map((r) => r.id),
    lastPosition: async (workspaceId, listId) =>
      Number(
        (
          await db.rows<{ n: string }>(`SELECT COALESCE(max(seq), 0) AS n FROM subscribers WHERE list_id = $1 AND workspace_id = $2`, [
            listId,
            workspaceId,
          ])
        )[0]!.n,
      ),
    activeAfter: async (workspaceId, listId, cursor, limit) => {
      const rows = await db.rows<SubscriberRow & { seq: string }>(
        `SELECT ${SUB_COLS}, seq FROM subscribers WHERE list_id = $1 AND workspace_id = $2 AND status = 'active' AND seq > $3 ORDER BY seq LIMIT ${limit}`,
        [listId, workspaceId, cursor],
      );
      const last = rows.at(-1);
      return { data: rows.map(toSubscriber), cursor: last ? Number(last.seq) : cursor, done: rows.length < limit };
    },
    byToken: async (token) => {
      const [r] = await db.rows<SubscriberRow & { list_name: string }>(
        `SELECT ${SUB_COLS.split(', ')
          .map((c) => `s.${c}`)
          .join(
            ', ',
          )}, l.name AS list_name FROM subscribers s JOIN lists l ON l.id = s.list_id WHERE s.unsubscribe_token = $1 AND NOT l.deleted`,
        [token],
      );
      return r ? { subscriber: toSubscriber(r), list: r.list_name } : null;
    },
    setStatus: async (workspaceId, listId, id, status, at) => {
      const [r] = await db.rows<SubscriberRow>(
        `UPDATE subscribers SET status = $4, updated_at = CASE WHEN status = $4 THEN updated_at ELSE $5 END WHERE workspace_id = $1 AND list_id = $2 AND id = $3 RETURNING ${SUB_COLS}`,
        [workspaceId, listId, id, status, at],
      );
      return r ? toSubscriber(r) : null;
    },
    confirmSent: async (workspaceId, listId, id, at) => {
      const [r] = await db.rows<SubscriberRow>(
        `UPDATE subscribers SET confirm_sent_at = $4 WHERE workspace_id = $1 AND list_id = $2 AND id = $3 RETURNING ${SUB_COLS}`,
        [workspaceId, listId, id, at],
      );
      return r ? toSubscriber(r) : null;
    },
    remove: async (workspaceId, listId, id) =>
      (await db.rows(`DELETE FROM subscribers WHERE workspace_id = $1 AND list_id = $2 AND id = $3 RETURNING 1`, [workspaceId, listId, id]))
        .length > 0,
    contacts: async (workspaceId) => db.tx((c) => contactsOf(c, workspaceId)),
  };
  return { lists, subscribers };
}

/**
 * One subscribe or many (an import) in one statement, under the workspace's row lock (the quota's
 * count holds until commit): those already on the list updated (name; tags when given; status
 * kept), the others added, refused whole past `limit` contacts. The rows written, in no order.
 */
async function upsertRows(
  c: pg.PoolClient,
  workspaceId: string,
  listId: string,
  rows: Array<{ s: Subscriber; update: SubscriberUpdate }>,
  limit: CountLimit,
): Promise<Array<SubscriberRow & { inserted: boolean }> | CountLimitRefusal> {
  await c.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  const list = await c.query('SELECT 1 FROM lists WHERE id = $1 AND workspace_id = $2 AND NOT deleted', [listId, workspaceId]);
  if (list.rowCount === 0) throw new SvcError('not_found', 'list not found');
  const emails = rows.map((r) => r.s.email);
  if (limit !== null) {
    const fresh = emails.length - (await knownOf(c, workspaceId, emails));
    const used = await contactsOf(c, workspaceId);
    if (used + fresh > limit) return { refused: 'count_limit', kind: 'contacts', limit, used };
  }
  const r = await c.query<SubscriberRow & { inserted: boolean }>(
    `INSERT INTO subscribers (${SUB_COLS})
     SELECT id, $2, $3, email, name, status, token, tags, created, updated, NULL
       FROM unnest($1::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::timestamptz[], $10::timestamptz[])
            AS x(id, email, name, status, token, tags, created, updated)
     ON CONFLICT (list_id, email) DO UPDATE SET (name, tags, updated_at) = (
       SELECT u.name, CASE WHEN u.given THEN u.tags ELSE subscribers.tags END, u.at
         FROM unnest($4::text[], $11::text[], $12::jsonb[], $13::boolean[], $14::timestamptz[]) AS u(email, name, tags, given, at)
        WHERE u.email = EXCLUDED.email)
     RETURNING ${SUB_COLS}, (xmax = 0) AS inserted`,
    [
      // The subscriber as added ($5-$10), and the update of one already on the list ($11-$14).
      rows.map((x) => x.s.id),
      listId,
      workspaceId,
      emails,
      rows.map((x) => x.s.name),
      rows.map((x) => x.s.status),
      rows.map((x) => x.s.unsubscribe_token),
      rows.map((x) => JSON.stringify(x.s.tags)),
      rows.map((x) => x.s.created_at),
      rows.map((x) => x.s.updated_at),
      rows.map((x) => x.update.name),
      rows.map((x) => JSON.stringify(x.update.tags ?? [])),
      rows.map((x) => x.update.tags !== undefined),
      rows.map((x) => x.update.updated_at),
    ],
  );
  return r.rows;
}

/** How many of these emails the workspace has on its lists. */
async function knownOf(c: pg.PoolClient, workspaceId: string, emails: string[]): Promise<number> {
  const r = await c.query<{ n: string }>(
    `SELECT count(DISTINCT s.email) AS n FROM subscribers s JOIN lists l ON l.id = s.list_id WHERE s.workspace_id = $1 AND s.email = ANY($2::text[]) AND NOT l.deleted`,
    [workspaceId, emails],
  );
  return Number(r.rows[0]!.n);
}

async function contactsOf(c: pg.PoolClient, workspaceId: string): Promise<number> {
  const r = await c.query<{ n: string }>(
    `SELECT count(DISTINCT s.email) AS n FROM subscribers s JOIN lists l ON l.id = s.list_id WHERE s.workspace_id = $1 AND NOT l.deleted`,
    [workspaceId],
  );
  return Number(r.rows[0]!.n);
}
