// Postgres: the team inbox. Received items in inbox_items; Sent copies are the send_contents rows
// (their id is the item id, their thread_id or else their id the thread). A received message and
// what it changes (bounces, suppressions, reply counts, webhook events) are one transaction.
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
import type { InboxStore } from '../port/inbox.js';
import type { PgDb } from './db.js';
import type { Selectable } from 'kysely';
import { toContent } from '../sql/messages.js';
import type { SendContentsTable } from '../sql/tables.js';

type ContentRow = Selectable<SendContentsTable>;
import { RECORD_EVENTS } from './tracking.js';

interface ItemRow {
  id: string;
  workspace_id: string;
  kind: InboxKind;
  thread_id: string;
  from_addr: string;
  from_name?: string | null;
  to_list: string[];
  cc_list: string[];
  subject: string;
  message_id: string | null;
  in_reply_to: string | null;
  refs: string[];
  headers: string;
  text_body: string | null;
  html: string | null;
  envelope: InboxItem['envelope'];
  auth: InboxItem['auth'];
  raw: string | null;
  size: string;
  message_ref: string | null;
  note: string | null;
  created_at: Date;
  /** Sent rows only (SENT_SUMMARY). */
  campaign_id?: string | null;
}

const SUMMARY_COLS =
  'id, workspace_id, kind, thread_id, from_addr, from_name, to_list, subject, message_id, size, message_ref, note, created_at';
/** Sent copies as summary rows (a send's content is its Sent copy). */
const SENT_SUMMARY = `SELECT id, workspace_id, 'sent' AS kind, COALESCE(thread_id, id) AS thread_id, from_addr, from_name, (SELECT COALESCE(jsonb_agg(p->>'address'), '[]') FROM jsonb_array_elements(to_list) p) AS to_list,
                             subject, message_id, 0 AS size, NULL AS message_ref, NULL AS note, created_at, campaign_id
                        FROM send_contents WHERE source <> 'fence' AND in_sent`;

const toSummary = (
  r: Omit<ItemRow, 'cc_list' | 'in_reply_to' | 'refs' | 'headers' | 'text_body' | 'html' | 'envelope' | 'auth' | 'raw'>,
): InboxSummary => ({
  id: r.id,
  workspace_id: r.workspace_id,
  folder: (r.kind === 'sent' ? 'sent' : 'inbox') as InboxFolder,
  kind: r.kind,
  thread_id: r.thread_id,
  from: r.from_addr,
  ...(r.from_name ? { from_name: r.from_name } : {}),
  to: r.to_list,
  subject: r.subject,
  message_id: r.message_id,
  size: Number(r.size),
  message_ref: r.message_ref,
  note: r.note,
  created_at: r.created_at.toISOString(),
  ...(r.campaign_id ? { campaign_id: r.campaign_id } : {}),
});

const toItem = (r: ItemRow): InboxItem => ({
  ...toSummary(r),
  cc: r.cc_list,
  in_reply_to: r.in_reply_to,
  references: r.refs,
  headers: r.headers,
  text: r.text_body,
  html: r.html,
  envelope: r.envelope,
  auth: r.auth ?? null,
  raw: r.raw,
});

export function pgInbox(db: PgDb): InboxStore {
  return {
    receive: (d) =>
      db.tx(async (c) => {
        for (const s of d.suppressions) {
          await c.query(
            `INSERT INTO suppressions (workspace_id, address, reason, detail, created_at, message_id, class) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
            [s.workspace_id, s.address, s.reason, s.detail, s.created_at, s.message_id ?? null, s.class ?? null],
          );
        }
        for (const l of d.lifted ?? [])
          await c.query(`DELETE FROM suppressions WHERE workspace_id = $1 AND address = $2 AND reason = 'complaint'`, [
            l.workspace_id,
            l.address,
          ]);
        await c.query(
          `INSERT INTO inbox_items (id, workspace_id, kind, thread_id, from_addr, from_name, to_list, cc_list, subject, message_id, in_reply_to, refs, headers, text_body, html, envelope, auth, raw, size, message_ref, note, created_at)
           SELECT id, workspace_id, kind, thread_id, "from", from_name, "to", cc, subject, message_id, in_reply_to, "references", headers, text, html, envelope, auth, $2, size, message_ref, note, created_at
             FROM jsonb_to_recordset($1) AS i(id text, workspace_id text, kind text, thread_id text, "from" text, from_name text, "to" jsonb, cc jsonb, subject text, message_id text, in_reply_to text,
                  "references" jsonb, headers text, text text, html text, envelope jsonb, auth jsonb, size bigint, message_ref text, note text, created_at timestamptz)`,
          // The message once, for every item it made (one per workspace).
          [JSON.stringify(d.items), d.raw.toString('base64')],
        );
        const added = new Map<string, number>();
        for (const i of d.items) added.set(i.workspace_id, (added.get(i.workspace_id) ?? 0) + storageCharge(i.size));
        for (const [ws, bytes] of [...added].sort()) {
          await c.query(
            `INSERT INTO inbox_usage (workspace_id, bytes) VALUES ($1, $2) ON CONFLICT (workspace_id) DO UPDATE SET bytes = inbox_usage.bytes + EXCLUDED.bytes`,
            [ws, bytes],
          );
        }
        // A permanent bounce report bounces a record not bounced yet, and only then is message.bounced sent.
        const bounced = d.updates.length
          ? (
              await c.query<{ id: string }>(
                `UPDATE messages m SET status = 'bounced', error = u.error, bounced_at = u.bounced_at, next_attempt_at = NULL
                   FROM jsonb_to_recordset($1) AS u(id text, error text, bounced_at timestamptz)
                  WHERE m.id = u.id AND m.status <> 'bounced' RETURNING m.id`,
                [JSON.stringify(d.updates)],
              )
            ).rows.map((r) => r.id)
          : [];
        const outbox = d.outbox.filter((e) => e.event !== 'message.bounced' || bounced.includes(e.message_id));
        if (d.events.length) await c.query(RECORD_EVENTS, [JSON.stringify(d.events), JSON.stringify(outbox)]);
        else if (outbox.length) {
          await c.query(
            `INSERT INTO outbox_events (id, workspace_id, event, message_id, payload, created_at)
             SELECT o.id, o.workspace_id, o.event, o.message_id, o.payload, o.created_at
               FROM jsonb_to_recordset($1) AS o(id text, workspace_id text, event text, message_id text, payload jsonb, created_at timestamptz)
              WHERE EXISTS (SELECT 1 FROM messages m WHERE m.id = o.message_id)`,
            [JSON.stringify(outbox)],
          );
        }
      }),
    list: async (workspaceId, q) => {
      const from = q.folder === 'sent' ? `(${SENT_SUMMARY}) s` : 'inbox_items s';
      const order = q.folder === 'sent' ? 'created_at DESC, id' : 'seq DESC';
      const filter: string[] = [workspaceId];
      const where = [
        'workspace_id = $1',
        ...(q.thread_id ? [`thread_id = $${filter.push(q.thread_id)}`] : []),
        ...(q.kind ? [`kind = $${filter.push(q.kind)}`] : []),
      ].join(' AND ');
      const n = filter.length;
      const name = `${q.folder}${q.thread_id ? '_thread' : ''}${q.kind ? '_kind' : ''}`;
      const rows = await db.rows<ItemRow>(
        `SELECT ${SUMMARY_COLS}${q.folder === 'sent' ? ', campaign_id' : ''} FROM ${from} WHERE ${where} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...filter, q.limit, q.offset],
        `inbox_list_${name}`,
      );
      const [c] = await db.rows<{ n: string }>(`SELECT count(*) AS n FROM ${from} WHERE ${where}`, filter, `inbox_count_${name}`);
      return { data: rows.map(toSummary), total: Number(c!.n) };
    },
    get: async (workspaceId, id) => {
      const [r] = await db.rows<ItemRow>(`SELECT * FROM inbox_items WHERE workspace_id = $1 AND id = $2`, [workspaceId, id], 'inbox_get');
      if (r) return toItem(r);
      const [c] = await db.rows<ContentRow>(
        `SELECT * FROM send_contents WHERE workspace_id = $1 AND id = $2 AND source <> 'fence' AND in_sent`,
        [workspaceId, id],
        'inbox_get_sent',
      );
      return c ? sentItem(toContent(c)) : null;
    },
    // A command-line lookup: both folders' ids (or threads' ids, a send being its own thread unless it
    // answered one), the prefix checked on each row of the workspace.
    idsWithPrefix: async (workspaceId, prefix, limit, threads) =>
      (
        await db.rows<{ id: string }>(
          threads
            ? `SELECT DISTINCT thread_id AS id FROM inbox_items WHERE workspace_id = $1 AND starts_with(thread_id, $2)
               UNION SELECT COALESCE(thread_id, id) FROM send_contents
                 WHERE workspace_id = $1 AND source <> 'fence' AND in_sent AND starts_with(COALESCE(thread_id, id), $2) LIMIT $3`
            : `SELECT id FROM inbox_items WHERE workspace_id = $1 AND starts_with(id, $2)
               UNION ALL SELECT id FROM send_contents WHERE workspace_id = $1 AND source <> 'fence' AND in_sent AND starts_with(id, $2) LIMIT $3`,
          [workspaceId, prefix, limit],
          threads ? 'inbox_thread_ids_prefix' : 'inbox_ids_prefix',
        )
      ).map((r) => r.id),
    threads: async (workspaceId, q) => {
      // A thread's flags as threadFlags (model/inbox.ts) has them, in SQL, to filter before the page is cut.
      const archived = `(s.archived_at IS NOT NULL AND (t.received_at IS NULL OR s.archived_at >= t.received_at))`;
      const view = q.view === 'archived' ? archived : q.view === 'inbox' ? `t.received_at IS NOT NULL AND NOT ${archived}` : 'true';
      // The inbox view holds only threads with received mail: the sends of other threads (most of a
      // sending workspace's) are not grouped at all.
      const inboxOnly =
        q.view === 'inbox' ? 'AND COALESCE(thread_id, id) IN (SELECT thread_id FROM inbox_items WHERE workspace_id = $1)' : '';
      // strpos on lower-cased text: the search is text, never a pattern. Without one, nothing is read for it.
      const searching = (q.search ?? '') !== '';
      const hit = (col: string) => (searching ? `strpos(lower(${col}), $4) > 0` : 'true');
      // A thread's items of both folders (a send is its own thread unless it answered one: send_contents_thread).
      const members = (
        inbox: string,
        sent: string,
      ) => `SELECT ${inbox} FROM inbox_items WHERE workspace_id = $1 AND thread_id = page.thread_id
        UNION ALL SELECT ${sent} FROM send_contents WHERE workspace_id = $1 AND source <> 'fence' AND in_sent AND id = page.thread_id AND thread_id IS NULL
        UNION ALL SELECT ${sent} FROM send_contents WHERE workspace_id = $1 AND source <> 'fence' AND in_sent AND thread_id = page.thread_id`;
      // Every thread is counted and dated from narrow rows; only the page's threads then look up their
      // first subject and newest sender (measured with 10,000 items and 10,000 sends: bench/RESULTS.md).
      const rows = await db.rows<{
        thread_id: string;
        subject: string;
        count: string;
        last_at: Date;
        last_from: string;
        last_kind: InboxKind;
        received_at: Date | null;
        read_at: Date | null;
        archived_at: Date | null;
        total: string;
      }>(
        `WITH items AS (SELECT thread_id, created_at, true AS received, ${hit('subject')} OR ${hit('from_addr')} OR ${hit('to_list::text')} AS hit
                          FROM inbox_items WHERE workspace_id = $1
                        UNION ALL SELECT COALESCE(thread_id, id), created_at, false, ${hit('subject')} OR ${hit('from_addr')} OR ${hit('to_list::text')}
                          FROM send_contents WHERE workspace_id = $1 AND source <> 'fence' AND in_sent ${inboxOnly}),
              t AS (SELECT thread_id, count(*) AS count, max(created_at) AS last_at, max(created_at) FILTER (WHERE received) AS received_at, bool_or(hit) AS hit
                      FROM items GROUP BY thread_id),
              page AS (SELECT t.*, s.read_at, s.archived_at, count(*) OVER () AS total
                         FROM t LEFT JOIN inbox_thread_state s ON s.workspace_id = $1 AND s.thread_id = t.thread_id
                        WHERE ${view} AND ($4 = '' OR t.hit)
                        ORDER BY last_at DESC, thread_id LIMIT $2 OFFSET $3)
         SELECT page.*, f.subject, l.from_addr AS last_from, l.kind AS last_kind
           FROM page
           CROSS JOIN LATERAL (SELECT subject FROM (${members('subject, created_at', 'subject, created_at')}) x ORDER BY created_at LIMIT 1) f
           CROSS JOIN LATERAL (SELECT from_addr, kind FROM (${members('from_addr, kind, created_at', "from_addr, 'sent' AS kind, created_at")}) y ORDER BY created_at DESC LIMIT 1) l
          ORDER BY last_at DESC, thread_id`,
        [workspaceId, q.limit, q.offset, (q.search ?? '').toLowerCase()],
        `inbox_threads_${q.view ?? 'all'}${searching ? '_search' : ''}`,
      );
      const data: InboxThread[] = rows.map((r) => {
        const received_at = r.received_at?.toISOString() ?? null;
        return {
          thread_id: r.thread_id,
          subject: r.subject,
          count: Number(r.count),
          last_at: r.last_at.toISOString(),
          last_from: r.last_from,
          last_kind: r.last_kind,
          received_at,
          ...threadFlags(received_at, { read_at: r.read_at?.toISOString() ?? null, archived_at: r.archived_at?.toISOString() ?? null }),
        };
      });
      const total = rows.length ? Number(rows[0]!.total) : 0;
      return { data, total };
    },
    threadState: async (workspaceId, threadId) => {
      const [r] = await db.rows<{ read_at: Date | null; archived_at: Date | null }>(
        `SELECT read_at, archived_at FROM inbox_thread_state WHERE workspace_id = $1 AND thread_id = $2`,
        [workspaceId, threadId],
        'inbox_thread_state',
      );
      return { read_at: r?.read_at?.toISOString() ?? null, archived_at: r?.archived_at?.toISOString() ?? null };
    },
    markThread: async (workspaceId, threadId, patch) => {
      const [known] = await db.rows<{ one: number }>(
        `SELECT 1 AS one FROM inbox_items WHERE workspace_id = $1 AND thread_id = $2
         UNION ALL SELECT 1 FROM send_contents WHERE workspace_id = $1 AND COALESCE(thread_id, id) = $2 AND source <> 'fence' AND in_sent LIMIT 1`,
        [workspaceId, threadId],
        'inbox_thread_known',
      );
      if (!known) return false;
      const has = (k: keyof ThreadState) => Object.prototype.hasOwnProperty.call(patch, k);
      await db.rows(
        `INSERT INTO inbox_thread_state (workspace_id, thread_id, read_at, archived_at) VALUES ($1, $2, $3, $5)
         ON CONFLICT (workspace_id, thread_id) DO UPDATE SET read_at = CASE WHEN $4 THEN EXCLUDED.read_at ELSE inbox_thread_state.read_at END,
                                                             archived_at = CASE WHEN $6 THEN EXCLUDED.archived_at ELSE inbox_thread_state.archived_at END`,
        [workspaceId, threadId, patch.read_at ?? null, has('read_at'), patch.archived_at ?? null, has('archived_at')],
        'inbox_mark_thread',
      );
      return true;
    },
    threadOf: async (workspaceId, messageIds) => {
      if (!messageIds.length) return null;
      const [r] = await db.rows<{ thread_id: string }>(
        `SELECT thread_id FROM (SELECT thread_id, message_id, created_at FROM inbox_items WHERE workspace_id = $1 AND message_id = ANY($2)
                                UNION ALL SELECT COALESCE(thread_id, id), message_id, created_at FROM send_contents WHERE workspace_id = $1 AND message_id = ANY($2) AND source <> 'fence' AND in_sent) x
          ORDER BY array_position($2, message_id), created_at LIMIT 1`,
        [workspaceId, messageIds],
        'inbox_thread_of',
      );
      return r?.thread_id ?? null;
    },
    about: async (workspaceId, ref) =>
      (
        await db.rows<ItemRow>(
          `SELECT ${SUMMARY_COLS} FROM inbox_items WHERE workspace_id = $1 AND message_ref = $2 ORDER BY seq`,
          [workspaceId, ref],
          'inbox_about',
        )
      ).map(toSummary),
    usage: async (workspaceId) =>
      Number(
        (await db.rows<{ bytes: string }>(`SELECT bytes FROM inbox_usage WHERE workspace_id = $1`, [workspaceId], 'inbox_usage'))[0]
          ?.bytes ?? 0,
      ),
    remove: (workspaceId, id) =>
      db.tx(async (c) => {
        const gone = await c.query<{ size: string }>(`DELETE FROM inbox_items WHERE workspace_id = $1 AND id = $2 RETURNING size`, [
          workspaceId,
          id,
        ]);
        if (!gone.rows.length) return false;
        await c.query(`UPDATE inbox_usage SET bytes = bytes - $2 WHERE workspace_id = $1`, [
          workspaceId,
          storageCharge(Number(gone.rows[0]!.size)),
        ]);
        return true;
      }),
    purge: async (before) =>
      Number(
        (
          await db.rows<{ n: string }>(
            `WITH gone AS (DELETE FROM inbox_items WHERE created_at < $1 RETURNING workspace_id, size),
                  used AS (UPDATE inbox_usage u SET bytes = u.bytes - g.bytes FROM (SELECT workspace_id, sum(CASE WHEN size = 0 THEN 0 ELSE GREATEST(size, $2) END) AS bytes FROM gone GROUP BY workspace_id) g
                            WHERE u.workspace_id = g.workspace_id RETURNING 1)
             SELECT count(*) AS n FROM gone`,
            [before, STORAGE_MIN_CHARGE],
          )
        )[0]!.n,
      ),
    // Deleted rows' space (their raw messages are TOASTed) is reused by autovacuum; nothing to do here.
    compact: async () => 0,
  };
}
