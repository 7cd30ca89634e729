// The team inbox on either SQL backend. Received items are inbox_items; Sent copies are the sends'
// contents (their id is the item id, their thread_id or else their id the thread). A received
// message and what it changes (bounces, suppressions, reply counts, webhook events) are one
// transaction. Long because the thread view (both folders grouped, filtered, paged) is one unit
// with the reads it shares its row mappings with.
import { sql, type Selectable } from '#kysely';
import {
  STORAGE_MIN_CHARGE,
  sentItem,
  storageCharge,
  threadFlags,
  type InboxFolder,
  type InboxItem,
  type InboxKind,
  type InboxSummary,
  type InboxThread,
  type ThreadState,
} from '../../model/inbox.js';
import type { SendContent } from '../../model/message.js';
import type { InboxStore } from '../port/inbox.js';
import { containing, fromJson, iso, isoOrNull, type Procedure, type Q, type SqlDb, startsWith } from './db.js';
import { toContent } from './messages.js';
import type { InboxItemsTable, Tables } from './tables.js';
import { recordEvents } from './tracking.js';
import type { ExpressionBuilder } from '#kysely';

const SUMMARY = [
  'id',
  'workspace_id',
  'kind',
  'thread_id',
  'from_addr',
  'from_name',
  'to_list',
  'subject',
  'message_id',
  'size',
  'message_ref',
  'note',
  'created_at',
] as const;
type SummaryRow = Pick<Selectable<InboxItemsTable>, (typeof SUMMARY)[number]>;

const toSummary = (r: SummaryRow): InboxSummary => ({
  id: r.id,
  workspace_id: r.workspace_id,
  folder: 'inbox' as InboxFolder,
  kind: r.kind as InboxKind,
  thread_id: r.thread_id,
  from: r.from_addr,
  ...(r.from_name ? { from_name: r.from_name } : {}),
  to: fromJson<string[]>(r.to_list),
  subject: r.subject,
  message_id: r.message_id,
  size: Number(r.size),
  message_ref: r.message_ref,
  note: r.note,
  created_at: iso(r.created_at),
});

const toItem = (r: Selectable<InboxItemsTable>): InboxItem => ({
  ...toSummary(r),
  cc: fromJson<string[]>(r.cc_list),
  in_reply_to: r.in_reply_to,
  references: fromJson<string[]>(r.refs),
  headers: r.headers,
  text: r.text_body,
  html: r.html,
  envelope: r.envelope === null ? null : fromJson<InboxItem['envelope']>(r.envelope),
  auth: r.auth === null ? null : fromJson<InboxItem['auth']>(r.auth),
  raw: r.raw,
});

const SENT = [
  'id',
  'workspace_id',
  'thread_id',
  'from_addr',
  'from_name',
  'to_list',
  'subject',
  'message_id',
  'created_at',
  'campaign_id',
] as const;

/** A send's content as a Sent summary row. */
const sentSummary = (r: {
  id: string;
  workspace_id: string;
  thread_id: string | null;
  from_addr: string;
  from_name: string | null;
  to_list: unknown;
  subject: string;
  message_id: string;
  created_at: Date | string;
  campaign_id: string | null;
}): InboxSummary => ({
  id: r.id,
  workspace_id: r.workspace_id,
  folder: 'sent',
  kind: 'sent',
  thread_id: r.thread_id ?? r.id,
  from: r.from_addr,
  ...(r.from_name ? { from_name: r.from_name } : {}),
  to: fromJson<SendContent['to']>(r.to_list).map((p) => p.address),
  subject: r.subject,
  message_id: r.message_id,
  size: 0,
  message_ref: null,
  note: null,
  created_at: iso(r.created_at),
  ...(r.campaign_id ? { campaign_id: r.campaign_id } : {}),
});

/** The sends that are Sent copies (not a fence, not left out of the folder). */
const isSent = (e: ExpressionBuilder<Tables, 'send_contents'>) => e.and([e('source', '<>', 'fence'), e('in_sent', '=', 1)]);

/** The thread a send belongs to: the one it answered, or its own. */
const sentThread = sql<string>`coalesce(thread_id, id)`;

type Received = Parameters<InboxStore['receive']>[0];

/** What the MX took in, in one transaction where the database is (db.ts, Procedure). */
export const receiveMail: Procedure<Received, void> = {
  name: 'receive',
  run: (db, d) => db.tx((q) => receive(q, d)),
};

async function receive(q: Q, d: Received): Promise<void> {
  for (const s of d.suppressions)
    await q
      .insertInto('suppressions')
      .values({ ...s, message_id: s.message_id ?? null, class: s.class ?? null })
      .onConflict((c) => c.doNothing())
      .execute();
  for (const l of d.lifted ?? [])
    await q
      .deleteFrom('suppressions')
      .where('workspace_id', '=', l.workspace_id)
      .where('address', '=', l.address)
      .where('reason', '=', 'complaint')
      .execute();
  // The message once for each item it made (one per workspace).
  // From the SQLite thread it is a Uint8Array (a Buffer crosses threads as its bytes).
  const raw = Buffer.from(d.raw).toString('base64');
  for (const i of d.items)
    await q
      .insertInto('inbox_items')
      .values({
        id: i.id,
        workspace_id: i.workspace_id,
        kind: i.kind,
        thread_id: i.thread_id,
        from_addr: i.from,
        from_name: i.from_name ?? null,
        to_list: JSON.stringify(i.to),
        cc_list: JSON.stringify(i.cc),
        subject: i.subject,
        message_id: i.message_id,
        in_reply_to: i.in_reply_to,
        refs: JSON.stringify(i.references),
        headers: i.headers,
        text_body: i.text,
        html: i.html,
        envelope: i.envelope ? JSON.stringify(i.envelope) : null,
        auth: i.auth ? JSON.stringify(i.auth) : null,
        raw,
        size: i.size,
        message_ref: i.message_ref,
        note: i.note,
        created_at: i.created_at,
      })
      .execute();
  const added = new Map<string, number>();
  for (const i of d.items) added.set(i.workspace_id, (added.get(i.workspace_id) ?? 0) + storageCharge(i.size));
  for (const [ws, bytes] of [...added].sort())
    await q
      .insertInto('inbox_usage')
      .values({ workspace_id: ws, bytes })
      .onConflict((c) => c.column('workspace_id').doUpdateSet((e) => ({ bytes: e(e.ref('inbox_usage.bytes'), '+', bytes) })))
      .execute();
  // A permanent bounce report bounces a record not bounced yet, and only then is message.bounced sent.
  const bounced = new Set<string>();
  for (const u of d.updates) {
    const r = await q
      .updateTable('messages')
      .set({ status: 'bounced', error: u.error ?? null, bounced_at: u.bounced_at ?? null, next_attempt_at: null })
      .where('id', '=', u.id)
      .where('status', '<>', 'bounced')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows)) bounced.add(u.id);
  }
  const outbox = d.outbox.filter((e) => e.event !== 'message.bounced' || bounced.has(e.message_id));
  if (d.events.length) return recordEvents(q, d.events, outbox);
  if (!outbox.length) return;
  const known = new Set(
    (
      await q
        .selectFrom('messages')
        .select('id')
        .where('id', 'in', [...new Set(outbox.map((o) => o.message_id))])
        .execute()
    ).map((r) => r.id),
  );
  const raised = outbox.filter((o) => known.has(o.message_id));
  if (raised.length)
    await q
      .insertInto('outbox_events')
      .values(raised.map((o) => ({ ...o, payload: JSON.stringify(o.payload) })))
      .execute();
}

export function sqlInbox(db: SqlDb): InboxStore {
  return {
    receive: (d) => db.procedure(receiveMail, d),
    list: (workspaceId, f) =>
      db.run(async (q) => {
        if (f.folder === 'sent') {
          let w = q.selectFrom('send_contents').where('workspace_id', '=', workspaceId).where(isSent);
          if (f.thread_id) w = w.where(sentThread, '=', f.thread_id);
          if (f.kind && f.kind !== 'sent') return { data: [], total: 0 };
          const rows = await w.select(SENT).orderBy('created_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute();
          const n = await w.select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow();
          return { data: rows.map(sentSummary), total: Number(n.n) };
        }
        let w = q.selectFrom('inbox_items').where('workspace_id', '=', workspaceId);
        if (f.thread_id) w = w.where('thread_id', '=', f.thread_id);
        if (f.kind) w = w.where('kind', '=', f.kind);
        const rows = await w.select(SUMMARY).orderBy('seq', 'desc').limit(f.limit).offset(f.offset).execute();
        const n = await w.select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow();
        return { data: rows.map(toSummary), total: Number(n.n) };
      }),
    get: (workspaceId, id) =>
      db.run(async (q) => {
        const r = await q
          .selectFrom('inbox_items')
          .selectAll()
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (r) return toItem(r);
        const c = await q
          .selectFrom('send_contents')
          .selectAll()
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .where(isSent)
          .executeTakeFirst();
        return c ? sentItem(toContent(c)) : null;
      }),
    // A command-line lookup: both folders' ids (or threads' ids), the prefix checked on each row of the workspace.
    idsWithPrefix: (workspaceId, prefix, limit, threads) =>
      db.run(async (q) => {
        const received = await q
          .selectFrom('inbox_items')
          .select(threads ? 'thread_id as id' : 'id')
          .where('workspace_id', '=', workspaceId)
          .where(startsWith(threads ? 'thread_id' : 'id', prefix))
          .limit(limit)
          .execute();
        const sent = await q
          .selectFrom('send_contents')
          .select(threads ? sentThread.as('id') : 'id')
          .where('workspace_id', '=', workspaceId)
          .where(isSent)
          .where(startsWith(threads ? sentThread : 'id', prefix))
          .limit(limit)
          .execute();
        return [...new Set([...received, ...sent].map((r) => r.id))].slice(0, limit);
      }),
    threads: (workspaceId, f) =>
      db.run(async (q) => {
        const needle = (f.search ?? '').toLowerCase();
        // A row's "holds the search" as a number both dialects sum up (1 or 0).
        const hit = needle
          ? sql<number>`CASE WHEN lower(subject) LIKE ${containing(needle)} OR lower(from_addr) LIKE ${containing(needle)} OR lower(cast(to_list AS text)) LIKE ${containing(needle)} THEN 1 ELSE 0 END`
          : sql<number>`1`;
        // Every thread is counted and dated from narrow rows; only the page's threads then look up
        // their first subject and newest sender.
        const received = q
          .selectFrom('inbox_items')
          .select(['thread_id', 'created_at', sql<number>`1`.as('received'), hit.as('hit')])
          .where('workspace_id', '=', workspaceId);
        let sent = q
          .selectFrom('send_contents')
          .select([sentThread.as('thread_id'), 'created_at', sql<number>`0`.as('received'), hit.as('hit')])
          .where('workspace_id', '=', workspaceId)
          .where(isSent);
        // The inbox view holds only threads with received mail: the sends of other threads are not grouped.
        if (f.view === 'inbox')
          sent = sent.where(sentThread, 'in', q.selectFrom('inbox_items').select('thread_id').where('workspace_id', '=', workspaceId));
        const archived = sql`(s.archived_at IS NOT NULL AND (t.received_at IS NULL OR s.archived_at >= t.received_at))`;
        const view =
          f.view === 'archived' ? archived : f.view === 'inbox' ? sql`(t.received_at IS NOT NULL AND NOT ${archived})` : sql`1 = 1`;
        const { rows } = await sql<{
          thread_id: string;
          count: string | number;
          last_at: Date | string;
          received_at: Date | string | null;
          read_at: Date | string | null;
          archived_at: Date | string | null;
          total: string | number;
        }>`WITH items AS ${received.unionAll(sent)},
                t AS (SELECT thread_id, count(*) AS count, max(created_at) AS last_at,
                             max(CASE WHEN received = 1 THEN created_at END) AS received_at, max(hit) AS hit
                        FROM items GROUP BY thread_id)
           SELECT t.thread_id, t.count, t.last_at, t.received_at, s.read_at, s.archived_at, count(*) OVER () AS total
             FROM t LEFT JOIN inbox_thread_state s ON s.workspace_id = ${workspaceId} AND s.thread_id = t.thread_id
            WHERE ${view} AND t.hit = 1
            ORDER BY t.last_at DESC, t.thread_id LIMIT ${f.limit} OFFSET ${f.offset}`.execute(q);
        const ids = rows.map((r) => r.thread_id);
        // The page's threads' members: the first subject, the newest sender.
        const members = ids.length
          ? [
              ...(await q
                .selectFrom('inbox_items')
                .select(['thread_id', 'subject', 'from_addr', 'kind', 'created_at', 'seq'])
                .where('workspace_id', '=', workspaceId)
                .where('thread_id', 'in', ids)
                .execute()),
              ...(
                await q
                  .selectFrom('send_contents')
                  .select([sentThread.as('thread_id'), 'subject', 'from_addr', 'created_at'])
                  .where('workspace_id', '=', workspaceId)
                  .where(isSent)
                  .where(sentThread, 'in', ids)
                  .execute()
              ).map((r) => ({ ...r, kind: 'sent', seq: 0 })),
            ].map((m) => ({ ...m, created_at: iso(m.created_at) }))
          : [];
        const data: InboxThread[] = rows.map((r) => {
          const mine = members
            .filter((m) => m.thread_id === r.thread_id)
            .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
          const first = mine[0];
          const last = mine.at(-1);
          const received_at = isoOrNull(r.received_at);
          return {
            thread_id: r.thread_id,
            subject: first?.subject ?? '',
            count: Number(r.count),
            last_at: iso(r.last_at),
            last_from: last?.from_addr ?? '',
            last_kind: (last?.kind ?? 'sent') as InboxKind,
            received_at,
            ...threadFlags(received_at, { read_at: isoOrNull(r.read_at), archived_at: isoOrNull(r.archived_at) }),
          };
        });
        return { data, total: rows.length ? Number(rows[0]!.total) : 0 };
      }),
    threadState: async (workspaceId, threadId) => {
      const r = await db.run((q) =>
        q
          .selectFrom('inbox_thread_state')
          .select(['read_at', 'archived_at'])
          .where('workspace_id', '=', workspaceId)
          .where('thread_id', '=', threadId)
          .executeTakeFirst(),
      );
      return { read_at: isoOrNull(r?.read_at ?? null), archived_at: isoOrNull(r?.archived_at ?? null) };
    },
    markThread: (workspaceId, threadId, patch) =>
      db.run(async (q) => {
        const known =
          (await q
            .selectFrom('inbox_items')
            .select('id')
            .where('workspace_id', '=', workspaceId)
            .where('thread_id', '=', threadId)
            .limit(1)
            .executeTakeFirst()) ??
          (await q
            .selectFrom('send_contents')
            .select('id')
            .where('workspace_id', '=', workspaceId)
            .where(sentThread, '=', threadId)
            .where(isSent)
            .limit(1)
            .executeTakeFirst());
        if (!known) return false;
        const has = (k: keyof ThreadState) => Object.prototype.hasOwnProperty.call(patch, k);
        const set = {
          ...(has('read_at') ? { read_at: patch.read_at ?? null } : {}),
          ...(has('archived_at') ? { archived_at: patch.archived_at ?? null } : {}),
        };
        await q
          .insertInto('inbox_thread_state')
          .values({
            workspace_id: workspaceId,
            thread_id: threadId,
            read_at: patch.read_at ?? null,
            archived_at: patch.archived_at ?? null,
          })
          .onConflict((c) => (Object.keys(set).length ? c.columns(['workspace_id', 'thread_id']).doUpdateSet(set) : c.doNothing()))
          .execute();
        return true;
      }),
    threadOf: (workspaceId, messageIds) =>
      db.run(async (q) => {
        if (!messageIds.length) return null;
        const found = [
          ...(await q
            .selectFrom('inbox_items')
            .select(['thread_id', 'message_id', 'created_at'])
            .where('workspace_id', '=', workspaceId)
            .where('message_id', 'in', messageIds)
            .execute()),
          ...(await q
            .selectFrom('send_contents')
            .select([sentThread.as('thread_id'), 'message_id', 'created_at'])
            .where('workspace_id', '=', workspaceId)
            .where('message_id', 'in', messageIds)
            .where(isSent)
            .execute()),
        ].map((r) => ({ ...r, at: iso(r.created_at), rank: messageIds.indexOf(r.message_id ?? '') }));
        found.sort((a, b) => a.rank - b.rank || (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
        return found[0]?.thread_id ?? null;
      }),
    about: async (workspaceId, ref) =>
      (
        await db.run((q) =>
          q
            .selectFrom('inbox_items')
            .select(SUMMARY)
            .where('workspace_id', '=', workspaceId)
            .where('message_ref', '=', ref)
            .orderBy('seq')
            .execute(),
        )
      ).map(toSummary),
    usage: async (workspaceId) =>
      Number(
        (await db.run((q) => q.selectFrom('inbox_usage').select('bytes').where('workspace_id', '=', workspaceId).executeTakeFirst()))
          ?.bytes ?? 0,
      ),
    remove: (workspaceId, id) =>
      db.tx(async (q) => {
        const gone = await q
          .deleteFrom('inbox_items')
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .returning('size')
          .executeTakeFirst();
        if (!gone) return false;
        const charge = storageCharge(Number(gone.size));
        await q
          .updateTable('inbox_usage')
          .set({ bytes: sql<number>`bytes - ${charge}` })
          .where('workspace_id', '=', workspaceId)
          .execute();
        return true;
      }),
    purge: (before) =>
      db.tx(async (q) => {
        const charged = await q
          .selectFrom('inbox_items')
          .select([
            'workspace_id',
            sql<
              string | number
            >`sum(CASE WHEN size = 0 THEN 0 WHEN size < ${STORAGE_MIN_CHARGE} THEN ${STORAGE_MIN_CHARGE} ELSE size END)`.as('bytes'),
          ])
          .where('created_at', '<', before)
          .groupBy('workspace_id')
          .execute();
        const r = await q.deleteFrom('inbox_items').where('created_at', '<', before).executeTakeFirst();
        for (const c of charged) {
          const bytes = Number(c.bytes);
          await q
            .updateTable('inbox_usage')
            .set({ bytes: sql<number>`bytes - ${bytes}` })
            .where('workspace_id', '=', c.workspace_id)
            .execute();
        }
        return Number(r.numDeletedRows);
      }),
    // Deleted rows' pages are reused by the database (SQLite's free list, Postgres's autovacuum).
    compact: async () => 0,
  };
}
