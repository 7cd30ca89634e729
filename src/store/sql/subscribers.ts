// Lists' subscribers on either SQL backend. The lists themselves are the control plane's (the
// Postgres table, or svc.json in the embedded store): a removed list's subscribers count for
// nothing from the moment it is removed, through the ListSource its backend gives. The contacts
// quota is checked under the workspace's contacts lock, so two racing subscribes cannot both take
// the last contact.
import { SvcError } from '../../errors.js';
import type { Subscriber, SubscriberStatus, SubscriberUpdate } from '../../model/list.js';
import type { CountLimit } from '../../model/quota.js';
import type { CountLimitRefusal } from '../../model/refusal.js';
import type { SubscriberStore } from '../port/lists.js';
import type { Selectable, Transaction } from '#kysely';
import { fromJson, iso, isoOrNull, keptCount, type Q, type SqlDb, startsWith } from './db.js';
import { insertAll } from './messages.js';
import type { SubscribersTable, Tables } from './tables.js';

/** The lists as the subscribers need them, from wherever the backend keeps them. */
export interface ListSource {
  /** The workspace's lists that are not removed: id → name. */
  live(q: Q, workspaceId: string): Promise<Map<string, string>>;
}

const COLUMNS = [
  'id',
  'list_id',
  'workspace_id',
  'email',
  'name',
  'status',
  'unsubscribe_token',
  'tags',
  'created_at',
  'updated_at',
  'confirm_sent_at',
] as const;
type Row = Pick<Selectable<SubscribersTable>, (typeof COLUMNS)[number]>;

const toSubscriber = (r: Row): Subscriber => ({
  id: r.id,
  list_id: r.list_id,
  workspace_id: r.workspace_id,
  email: r.email,
  name: r.name,
  status: r.status as SubscriberStatus,
  unsubscribe_token: r.unsubscribe_token,
  tags: fromJson<string[]>(r.tags),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  ...(r.confirm_sent_at ? { confirm_sent_at: isoOrNull(r.confirm_sent_at) } : {}),
});

/** How many of these emails the workspace has on its live lists. */
async function knownOf(q: Q, workspaceId: string, lists: string[], emails: string[]): Promise<number> {
  if (!lists.length || !emails.length) return 0;
  let n = 0;
  for (let i = 0; i < emails.length; i += 500) {
    const r = await q
      .selectFrom('subscribers')
      .select((e) => e.fn.count<string | number>('email').distinct().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('list_id', 'in', lists)
      .where('email', 'in', emails.slice(i, i + 500))
      .executeTakeFirstOrThrow();
    n += Number(r.n);
  }
  return n;
}

async function contactsOf(q: Q, workspaceId: string, lists: string[]): Promise<number> {
  if (!lists.length) return 0;
  const r = await q
    .selectFrom('subscribers')
    .select((e) => e.fn.count<string | number>('email').distinct().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('list_id', 'in', lists)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export function sqlSubscribers(db: SqlDb, lists: ListSource): SubscriberStore {
  /** The ids of the workspace's lists that are not removed. */
  const liveIds = async (q: Q, workspaceId: string) => [...(await lists.live(q, workspaceId)).keys()];
  /**
   * One subscribe or many (an import) in one transaction, under the workspace's contacts lock:
   * those already on the list updated (name; tags when given; status kept), the others added,
   * refused whole past `limit` contacts. The rows written, in the order given, with whether each
   * was added.
   */
  const upsertRows = async (
    q: Transaction<Tables>,
    workspaceId: string,
    listId: string,
    rows: Array<{ s: Subscriber; update: SubscriberUpdate }>,
    limit: CountLimit,
  ): Promise<Array<{ row: Row; inserted: boolean }> | CountLimitRefusal> => {
    await db.lockKey(q, `svc_contacts:${workspaceId}`);
    const live = await liveIds(q, workspaceId);
    if (!live.includes(listId)) throw new SvcError('not_found', 'list not found');
    const emails = rows.map((r) => r.s.email);
    if (limit !== null) {
      const fresh = emails.length - (await knownOf(q, workspaceId, live, emails));
      const used = await contactsOf(q, workspaceId, live);
      if (used + fresh > limit) return { refused: 'count_limit', kind: 'contacts', limit, used };
    }
    const existing = new Map<string, Row>();
    for (let i = 0; i < emails.length; i += 500)
      for (const r of await q
        .selectFrom('subscribers')
        .select(COLUMNS)
        .where('list_id', '=', listId)
        .where('email', 'in', emails.slice(i, i + 500))
        .execute())
        existing.set(r.email, r);
    const added = rows.filter((r) => !existing.has(r.s.email));
    await insertAll(
      q,
      'subscribers',
      added.map(({ s }) => ({ ...s, list_id: listId, workspace_id: workspaceId, tags: JSON.stringify(s.tags), confirm_sent_at: null })),
    );
    const out: Array<{ row: Row; inserted: boolean }> = [];
    for (const { s, update } of rows) {
      const was = existing.get(s.email);
      if (!was) {
        out.push({ row: { ...s, tags: JSON.stringify(s.tags), confirm_sent_at: null }, inserted: true });
        continue;
      }
      const set = {
        name: update.name,
        updated_at: update.updated_at,
        ...(update.tags !== undefined ? { tags: JSON.stringify(update.tags) } : {}),
      };
      await q.updateTable('subscribers').set(set).where('id', '=', was.id).execute();
      out.push({ row: { ...was, ...set }, inserted: false });
    }
    return out;
  };

  const one = async (q: Q, workspaceId: string, listId: string, id: string) =>
    q
      .selectFrom('subscribers')
      .select(COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('list_id', '=', listId)
      .where('id', '=', id)
      .executeTakeFirst();

  return {
    upsert: (s, update, limit) =>
      db.tx(async (q) => {
        const r = await upsertRows(q, s.workspace_id, s.list_id, [{ s, update }], limit);
        return 'refused' in r ? r : { subscriber: toSubscriber(r[0]!.row), created: r[0]!.inserted };
      }),
    upsertMany: (workspaceId, listId, rows, limit) =>
      db.tx(async (q) => {
        const r = await upsertRows(q, workspaceId, listId, rows, limit);
        if ('refused' in r) return r;
        const created = r.filter((x) => x.inserted).length;
        return { created, updated: r.length - created };
      }),
    newContacts: (workspaceId, emails) =>
      db.run(async (q) => emails.length - (await knownOf(q, workspaceId, await liveIds(q, workspaceId), emails))),
    list: (workspaceId, listId, f) =>
      db.run(async (q) => {
        let w = q.selectFrom('subscribers').where('list_id', '=', listId).where('workspace_id', '=', workspaceId);
        if (f.status) w = w.where('status', '=', f.status);
        const data = await w.select(COLUMNS).orderBy('seq').limit(f.limit).offset(f.offset).execute();
        // The list's rows are its workspace's (a list id is never another's): the kept count is theirs.
        const total = db.keepsCounts
          ? await keptCount(q, 'subscriber_counts', { list_id: listId }, f.status)
          : Number((await w.select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        return { data: data.map(toSubscriber), total };
      }),
    get: async (workspaceId, listId, id) => {
      const r = await db.run((q) => one(q, workspaceId, listId, id));
      return r ? toSubscriber(r) : null;
    },
    // A list being removed counts as gone at once (its subscribers go in batches after): none of it is active.
    active: (workspaceId, refs) =>
      db.run(async (q) => {
        const live = await liveIds(q, workspaceId);
        const ids = refs.filter((r) => live.includes(r.list_id)).map((r) => r.id);
        if (!ids.length) return new Set<string>();
        const rows = await q
          .selectFrom('subscribers')
          .select('id')
          .where('workspace_id', '=', workspaceId)
          .where('id', 'in', ids)
          .where('status', '=', 'active')
          .where('list_id', 'in', live)
          .execute();
        return new Set(rows.map((r) => r.id));
      }),
    // A command-line lookup: the list's rows, the prefix checked on each.
    idsWithPrefix: async (workspaceId, listId, prefix, limit) =>
      (
        await db.run((q) =>
          q
            .selectFrom('subscribers')
            .select('id')
            .where('workspace_id', '=', workspaceId)
            .where('list_id', '=', listId)
            .where(startsWith('id', prefix))
            .limit(limit)
            .execute(),
        )
      ).map((r) => r.id),
    lastPosition: async (workspaceId, listId) =>
      Number(
        (
          await db.run((q) =>
            q
              .selectFrom('subscribers')
              .select((e) => e.fn.max('seq').as('n'))
              .where('list_id', '=', listId)
              .where('workspace_id', '=', workspaceId)
              .executeTakeFirst(),
          )
        )?.n ?? 0,
      ),
    activeAfter: async (workspaceId, listId, cursor, limit) => {
      const rows = await db.run((q) =>
        q
          .selectFrom('subscribers')
          .select([...COLUMNS, 'seq'])
          .where('list_id', '=', listId)
          .where('workspace_id', '=', workspaceId)
          .where('status', '=', 'active')
          .where('seq', '>', cursor)
          .orderBy('seq')
          .limit(limit)
          .execute(),
      );
      const last = rows.at(-1);
      return { data: rows.map(toSubscriber), cursor: last ? Number(last.seq) : cursor, done: rows.length < limit };
    },
    byToken: (token) =>
      db.run(async (q) => {
        const r = await q.selectFrom('subscribers').select(COLUMNS).where('unsubscribe_token', '=', token).executeTakeFirst();
        if (!r) return null;
        const name = (await lists.live(q, r.workspace_id)).get(r.list_id);
        return name === undefined ? null : { subscriber: toSubscriber(r), list: name };
      }),
    setStatus: (workspaceId, listId, id, status, at) =>
      db.tx(async (q) => {
        const was = await one(q, workspaceId, listId, id);
        if (!was) return null;
        if (was.status === status) return toSubscriber(was);
        await q.updateTable('subscribers').set({ status, updated_at: at }).where('id', '=', id).execute();
        return toSubscriber({ ...was, status, updated_at: at });
      }),
    confirmSent: (workspaceId, listId, id, at) =>
      db.run(async (q) => {
        const r = await q
          .updateTable('subscribers')
          .set({ confirm_sent_at: at })
          .where('workspace_id', '=', workspaceId)
          .where('list_id', '=', listId)
          .where('id', '=', id)
          .returning(COLUMNS)
          .executeTakeFirst();
        return r ? toSubscriber(r) : null;
      }),
    remove: async (workspaceId, listId, id) =>
      Number(
        (
          await db.run((q) =>
            q
              .deleteFrom('subscribers')
              .where('workspace_id', '=', workspaceId)
              .where('list_id', '=', listId)
              .where('id', '=', id)
              .executeTakeFirst(),
          )
        ).numDeletedRows,
      ) > 0,
    contacts: (workspaceId) => db.run(async (q) => contactsOf(q, workspaceId, await liveIds(q, workspaceId))),
  };
}

/** Removes a removed list's subscribers, `batch` at a time; how many went. */
export async function sweepSubscribers(db: SqlDb, listId: string, batch = 5_000): Promise<number> {
  let removed = 0;
  for (;;) {
    const gone = await db.run((q) =>
      q
        .deleteFrom('subscribers')
        .where('id', 'in', q.selectFrom('subscribers').select('id').where('list_id', '=', listId).limit(batch))
        .executeTakeFirst(),
    );
    removed += Number(gone.numDeletedRows);
    if (Number(gone.numDeletedRows) < batch) return removed;
  }
}

/** How many subscribers each of these lists holds. */
export async function subscriberCounts(db: SqlDb, listIds: string[]): Promise<Map<string, number>> {
  if (!listIds.length) return new Map();
  const rows = await db.run((q) =>
    db.keepsCounts
      ? q
          .selectFrom('subscriber_counts')
          .select(['list_id', (e) => e.fn.sum<string | number>('n').as('n')])
          .where('list_id', 'in', listIds)
          .groupBy('list_id')
          .execute()
      : q
          .selectFrom('subscribers')
          .select(['list_id', (e) => e.fn.countAll<string | number>().as('n')])
          .where('list_id', 'in', listIds)
          .groupBy('list_id')
          .execute(),
  );
  return new Map(rows.map((r) => [r.list_id, Number(r.n)]));
}
