// The message aggregate on either SQL backend: a send's content, records, jobs and events accepted
// in one transaction with the rules that may refuse it (a suppressed recipient, the send quota, a
// campaign or enrolment that moved on) and the Idempotency-Key it completes. Concurrent sends share
// a transaction (batcher.ts): one commit for all of them. Long because accept and the row mappings
// the reads share with it are one unit.
import { sql, type Insertable, type Selectable } from '#kysely';
import { SvcError } from '../../errors.js';
import { ATTEMPTS_KEPT } from '../../model/attempt.js';
import type { Message, SendContent } from '../../model/message.js';
import { overQuota } from '../../model/quota.js';
import type { AcceptRefusal } from '../../model/refusal.js';
import type { AcceptBatch, MessageStore, UsageStore } from '../port/messages.js';
import { Batcher } from './batcher.js';
import {
  bool,
  containing,
  deferred,
  flag,
  fromJson,
  iso,
  isoOrNull,
  type Procedure,
  type Q,
  type SqlDb,
  idsStartingWith,
  keptCount,
} from './db.js';
import type { MessagesTable, SendContentsTable, Tables } from './tables.js';

export const MESSAGE_COLUMNS = [
  'id',
  'workspace_id',
  'content_id',
  'source',
  'from_addr',
  'to_addr',
  'kind',
  'subject',
  'status',
  'open_count',
  'click_count',
  'reply_count',
  'first_open_after_seconds',
  'message_id',
  'error',
  'notes',
  'created_at',
  'sent_at',
  'opened_at',
  'clicked_at',
  'replied_at',
  'bounced_at',
  'attempts',
  'last_error',
  'next_attempt_at',
  'token',
  'via',
  'campaign_id',
  'subscriber',
] as const;
export type MessageRow = Pick<Selectable<MessagesTable>, (typeof MESSAGE_COLUMNS)[number]>;

export const toMessage = (r: MessageRow): Message => ({
  id: r.id,
  workspace_id: r.workspace_id,
  content_id: r.content_id,
  source: r.source as Message['source'],
  from: r.from_addr,
  to: r.to_addr,
  kind: r.kind as Message['kind'],
  subject: r.subject,
  status: r.status as Message['status'],
  open_count: r.open_count,
  click_count: r.click_count,
  reply_count: r.reply_count,
  first_open_after_seconds: r.first_open_after_seconds,
  message_id: r.message_id,
  error: r.error,
  notes: fromJson<string[]>(r.notes),
  created_at: iso(r.created_at),
  sent_at: isoOrNull(r.sent_at),
  opened_at: isoOrNull(r.opened_at),
  clicked_at: isoOrNull(r.clicked_at),
  replied_at: isoOrNull(r.replied_at),
  bounced_at: isoOrNull(r.bounced_at),
  // Kept once there was an attempt (a new record has none).
  ...(r.attempts > 0 ? { attempts: r.attempts, last_error: r.last_error, next_attempt_at: isoOrNull(r.next_attempt_at) } : {}),
  token: r.token,
  ...(r.via ? { via: fromJson<NonNullable<Message['via']>>(r.via) } : {}),
  ...(r.campaign_id ? { campaign_id: r.campaign_id } : {}),
  ...(r.subscriber ? { subscriber: fromJson<NonNullable<Message['subscriber']>>(r.subscriber) } : {}),
});

export const messageRow = (m: Message): Insertable<MessagesTable> => ({
  id: m.id,
  workspace_id: m.workspace_id,
  content_id: m.content_id,
  source: m.source,
  from_addr: m.from,
  to_addr: m.to,
  kind: m.kind,
  subject: m.subject,
  status: m.status,
  open_count: m.open_count,
  click_count: m.click_count,
  reply_count: m.reply_count,
  first_open_after_seconds: m.first_open_after_seconds,
  message_id: m.message_id,
  error: m.error,
  notes: JSON.stringify(m.notes),
  created_at: m.created_at,
  sent_at: m.sent_at,
  opened_at: m.opened_at,
  clicked_at: m.clicked_at,
  replied_at: m.replied_at,
  bounced_at: m.bounced_at,
  attempts: 0,
  last_error: null,
  next_attempt_at: null,
  token: m.token,
  via: m.via ? JSON.stringify(m.via) : null,
  campaign_id: m.campaign_id ?? null,
  subscriber: m.subscriber ? JSON.stringify(m.subscriber) : null,
});

export const toContent = (r: Selectable<SendContentsTable>): SendContent => ({
  id: r.id,
  workspace_id: r.workspace_id,
  source: r.source as SendContent['source'],
  from: r.from_addr,
  from_name: r.from_name,
  domain_id: r.domain_id,
  to: fromJson<SendContent['to']>(r.to_list),
  cc: fromJson<SendContent['cc']>(r.cc_list),
  subject: r.subject,
  html: r.html,
  text: r.text_body,
  message_id: r.message_id,
  notes: fromJson<string[]>(r.notes),
  created_at: iso(r.created_at),
  ...(r.attachments ? { attachments: fromJson<NonNullable<SendContent['attachments']>>(r.attachments) } : {}),
  ...(r.thread_id ? { thread_id: r.thread_id } : {}),
  ...(r.in_reply_to ? { in_reply_to: r.in_reply_to } : {}),
  ...(r.refs ? { references: fromJson<string[]>(r.refs) } : {}),
  ...(r.preheader ? { preheader: r.preheader } : {}),
  ...(r.raw ? { raw: Buffer.from(r.raw).toString('base64') } : {}),
  ...(r.campaign_id ? { campaign_id: r.campaign_id } : {}),
  ...(bool(r.in_sent) ? {} : { in_sent: false as const }),
});

const contentRow = (k: SendContent): Insertable<SendContentsTable> => ({
  id: k.id,
  workspace_id: k.workspace_id,
  source: k.source,
  from_addr: k.from,
  from_name: k.from_name,
  domain_id: k.domain_id,
  to_list: JSON.stringify(k.to),
  cc_list: JSON.stringify(k.cc),
  subject: k.subject,
  html: k.html,
  text_body: k.text,
  message_id: k.message_id,
  notes: JSON.stringify(k.notes),
  created_at: k.created_at,
  attachments: k.attachments ? JSON.stringify(k.attachments) : null,
  thread_id: k.thread_id ?? null,
  in_reply_to: k.in_reply_to ?? null,
  refs: k.references ? JSON.stringify(k.references) : null,
  preheader: k.preheader ?? null,
  raw: k.raw !== undefined ? Buffer.from(k.raw, 'base64') : null,
  campaign_id: k.campaign_id ?? null,
  in_sent: flag(k.in_sent !== false),
});

/** Rows per INSERT: within SQLite's 32,766 bound variables for the widest table (messages, 29 columns). */
const CHUNK = 500;

/** Inserts rows in statements of CHUNK rows. */
export async function insertAll<T extends keyof Tables & string>(q: Q, table: T, rows: Array<Insertable<Tables[T]>>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await deferred(q, q.insertInto(table).values(rows.slice(i, i + CHUNK) as never));
}

/** A refusal found inside the transaction: it rolls back, and the send gets the refusal as its answer. */
export class Refused extends Error {
  constructor(readonly refusal: AcceptRefusal) {
    super(refusal.refused);
  }
}

/** How long a send whose statement got no answer keeps trying to learn whether it was queued. */
export const FENCE_WINDOW_MS = 60_000;
/**
 * The same for relay mail, which has no Idempotency-Key to make a retry safe: a 451 for mail that
 * was stored makes the client send it twice. The SMTP session is held instead (an SMTP client waits
 * 10 minutes for the answer after the final dot, RFC 5321 §4.5.3.2.6; the relay's connection limit
 * waits for it too), within the relay's 5-minute limit.
 */
export const RELAY_FENCE_WINDOW_MS = 240_000;

/**
 * Counts the debits of these sends of one workspace, in order, or refuses (Refused send_quota)
 * the first that would pass a window's limit (model/quota.ts). Inside a transaction that holds
 * the workspace's send lock: one read of the counts and one write per window for all of them.
 */
export async function debitQuota(db: SqlDb, q: Q, ws: string, debits: Array<NonNullable<AcceptBatch['debit']>>): Promise<void> {
  const counted = debits.filter((d) => d.n > 0 && d.windows.length);
  if (!counted.length) return;
  const keys = [...new Set(counted.flatMap((d) => d.windows.map((w) => w.key)))];
  let read = q.selectFrom('send_usage').select(['window_key', 'used']).where('workspace_id', '=', ws).where('window_key', 'in', keys);
  if (db.locksRows) read = read.forUpdate();
  const used = new Map((await read.execute()).map((r) => [r.window_key, r.used]));
  const added = new Map<string, number>();
  for (const d of counted) {
    const over = overQuota(d.windows, (k) => (used.get(k) ?? 0) + (added.get(k) ?? 0), d.n);
    if (over) throw new Refused(over);
    for (const w of d.windows) added.set(w.key, (added.get(w.key) ?? 0) + d.n);
  }
  for (const [key, n] of added)
    await deferred(
      q,
      q
        .insertInto('send_usage')
        .values({ workspace_id: ws, window_key: key, used: n })
        .onConflict((c) => c.columns(['workspace_id', 'window_key']).doUpdateSet((e) => ({ used: e(e.ref('send_usage.used'), '+', n) }))),
    );
}

/**
 * The rules of these sends of one workspace that read the store once for all of them: a send naming
 * a suppressed recipient is refused (the first such send, with its listed addresses), then the quota.
 */
async function workspaceRules(db: SqlDb, q: Q, ws: string, sends: AcceptBatch[]): Promise<void> {
  const asked = [...new Set(sends.flatMap((b) => b.unsuppressed ?? []))];
  if (asked.length) {
    const listed = new Set(
      (await q.selectFrom('suppressions').select('address').where('workspace_id', '=', ws).where('address', 'in', asked).execute()).map(
        (r) => r.address,
      ),
    );
    for (const b of sends) {
      const mine = (b.unsuppressed ?? []).filter((a) => listed.has(a));
      if (mine.length) throw new Refused({ refused: 'suppressed', addresses: mine });
    }
  }
  await debitQuota(
    db,
    q,
    ws,
    sends.flatMap((b) => (b.debit ? [b.debit] : [])),
  );
}

/** The refusal a transaction was rolled back for (Refused), as the store's answer; other errors go on. */
export function refusalOf(e: unknown): AcceptRefusal {
  const cause = e instanceof SvcError ? e.cause : e;
  if (cause instanceof Refused) return cause.refusal;
  throw e;
}

/** One send's own rules (a campaign's or enrolment's move, its Idempotency-Key), inside the batch's transaction. */
async function acceptOne(q: Q, b: AcceptBatch): Promise<void> {
  const ws = b.content.workspace_id;
  // A fan-out batch moves its campaign on from where it read, or is refused whole: another daemon's
  // batch got there first, and no one gets two copies.
  if (b.campaign) {
    const p = b.campaign;
    const r = await q
      .updateTable('campaigns')
      .set({
        cursor: p.cursor,
        copies: p.copies,
        ...(p.fanned_out_at ? { fanned_out_at: sql<string>`coalesce(fanned_out_at, ${p.fanned_out_at})` } : {}),
      })
      .where('id', '=', p.id)
      .where('cursor', '=', p.from)
      .executeTakeFirst();
    if (!Number(r.numUpdatedRows)) throw new Refused({ refused: 'campaign_moved' });
  }
  // A sequence step's send moves its enrolment on likewise, unless it moved or stopped meanwhile.
  if (b.enrolment) {
    const s = b.enrolment;
    const r = await q
      .updateTable('enrolments')
      .set({ position: s.position, last_at: s.last_at, due_at: s.due_at, reason: s.reason, lease_owner: null, lease_until: null })
      .where('id', '=', s.id)
      .where('position', '=', s.from)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (!Number(r.numUpdatedRows)) throw new Refused({ refused: 'enrolment_moved' });
  }
  if (b.idempotency) {
    const i = b.idempotency;
    await deferred(
      q,
      q
        .updateTable('idempotency_keys')
        .set({ state: 'completed', response: JSON.stringify(i.response), created_at: b.content.created_at })
        .where('workspace_id', '=', ws)
        .where('key', '=', i.key)
        .where('token', '=', i.token),
    );
  }
}

/**
 * The sends of one batch in one transaction: per workspace, in order (so that two batches never
 * wait on each other's locks in opposite orders), its send lock and the rules its sends share;
 * then each send's own rules, then every row.
 */
export const accept: Procedure<AcceptBatch[], void[]> = {
  name: 'accept',
  run: (db, batches) =>
    db.tx(async (q) => {
      const byWorkspace = new Map<string, AcceptBatch[]>();
      for (const b of batches) byWorkspace.set(b.content.workspace_id, [...(byWorkspace.get(b.content.workspace_id) ?? []), b]);
      for (const [ws, sends] of [...byWorkspace].sort(([a], [b]) => (a < b ? -1 : 1))) {
        await db.lockKey(q, `svc_send:${ws}`);
        await workspaceRules(db, q, ws, sends);
      }
      for (const b of batches) await acceptOne(q, b);
      await insertAll(
        q,
        'send_contents',
        batches.map((b) => contentRow(b.content)),
      );
      await insertAll(
        q,
        'messages',
        batches.flatMap((b) => b.messages.map(messageRow)),
      );
      await insertAll(
        q,
        'outbound_jobs',
        batches.flatMap((b) =>
          b.jobs.map((j) => ({
            id: j.id,
            workspace_id: j.workspace_id,
            content_id: j.content_id,
            domain: j.domain,
            message_ids: JSON.stringify(j.message_ids),
            attempts: j.attempts,
            next_attempt_at: j.next_attempt_at,
            created_at: j.created_at,
            last_error: j.last_error,
            priority: j.priority ?? 0,
            held: flag(j.held === true),
          })),
        ),
      );
      await insertAll(
        q,
        'outbox_events',
        batches.flatMap((b) =>
          b.events.map((e) => ({
            id: e.id,
            workspace_id: e.workspace_id,
            event: e.event,
            message_id: e.message_id,
            payload: JSON.stringify(e.payload),
            created_at: e.created_at,
          })),
        ),
      );
      return batches.map(() => undefined);
    }),
};

export function sqlMessages(
  db: SqlDb,
  fenceMs = { api: FENCE_WINDOW_MS, relay: RELAY_FENCE_WINDOW_MS },
): { messages: MessageStore; usage: UsageStore } {
  const accepts = new Batcher<AcceptBatch, void>((batches) => db.procedure(accept, batches), {
    ...db.batching,
    unknown: (e) => db.outcomeUnknown(e),
  });

  /**
   * After a send's transaction got no answer, did it commit? A fence answers for good: a placeholder
   * row under the send's content id. If the send committed, its row is there and the fence does
   * nothing (answer: accepted). If not, the fence takes the id, so the transaction, should it still
   * commit later (a server that thaws), fails on it and stores nothing (answer: refused). Fences stay
   * (a few bytes; a fenced id is never used again). Tried for the window of the send's source; past
   * it the outcome is unknown.
   */
  const committed = async (content: AcceptBatch['content']): Promise<boolean> => {
    const windowMs = content.source === 'relay' ? fenceMs.relay : fenceMs.api;
    const deadline = Date.now() + windowMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      try {
        const rows = await db.run((q) =>
          q
            .insertInto('send_contents')
            .values({
              id: content.id,
              workspace_id: content.workspace_id,
              source: 'fence',
              from_addr: '',
              domain_id: '',
              to_list: '[]',
              cc_list: '[]',
              subject: '',
              message_id: '',
              notes: '[]',
              created_at: new Date().toISOString(),
              in_sent: 0,
            })
            .onConflict((c) => c.column('id').doNothing())
            .returning('id')
            .execute(),
        );
        return rows.length === 0;
      } catch (e) {
        if (!(e instanceof SvcError && e.kind === 'store_unavailable') || Date.now() + delay > deadline) {
          throw new SvcError(
            'store_unavailable',
            `store unavailable: whether this send was queued is unknown (no answer from the database for ${Math.round(windowMs / 1000)} s); retry with the same Idempotency-Key`,
            { cause: e },
          );
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  // The reads of concurrent hand-offs (a worker runs dozens at once), one statement for each kind.
  const contentReads = new Batcher<string, SendContent | null>(async (ids) => {
    // What delivery needs: the content of a send with jobs left (a finished one is only its Sent copy).
    const rows = await db.run((q) =>
      q
        .selectFrom('send_contents as c')
        .selectAll('c')
        .where('c.id', 'in', [...new Set(ids)])
        .where(({ exists, selectFrom }) => exists(selectFrom('outbound_jobs as j').select('j.id').whereRef('j.content_id', '=', 'c.id')))
        .execute(),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const r = byId.get(id);
      return r ? toContent(r) : null;
    });
  });
  const messageReads = new Batcher<string[], Message[]>(async (lists) => {
    const ids = [...new Set(lists.flat())];
    const rows = ids.length
      ? await db.run((q) => q.selectFrom('messages').select(MESSAGE_COLUMNS).where('id', 'in', ids).orderBy('seq').execute())
      : [];
    // Each caller gets records of its own, in creation order.
    return lists.map((want) => {
      const wanted = new Set(want);
      return rows.filter((r) => wanted.has(r.id)).map(toMessage);
    });
  });

  const messages: MessageStore = {
    accept: async (batch) =>
      accepts.run(batch).then(
        () => null,
        async (e: unknown) => {
          if (db.outcomeUnknown(e) && (await committed(batch.content))) return null;
          return refusalOf(e);
        },
      ),
    idsWithPrefix: (workspaceId, prefix, limit) => idsStartingWith(db, 'messages', workspaceId, prefix, limit),
    get: async (workspaceId, id) => {
      const r = await db.run((q) =>
        q.selectFrom('messages').select(MESSAGE_COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst(),
      );
      return r ? toMessage(r) : null;
    },
    list: (workspaceId, m) =>
      db.run(async (q) => {
        let w = q.selectFrom('messages').where('workspace_id', '=', workspaceId);
        if (m.status) w = w.where('status', '=', m.status);
        if (m.recipient) w = w.where(sql`lower(to_addr)`, 'like', containing(m.recipient));
        if (m.from) w = w.where(sql`lower(from_addr)`, 'like', containing(m.from));
        if (m.messageId) w = w.where('message_id', '=', m.messageId);
        if (m.since) w = w.where('created_at', '>=', m.since);
        if (m.until) w = w.where('created_at', '<', m.until);
        // A page by status alone reads the kept count (db.ts keepsCounts); any other filter counts.
        const kept = db.keepsCounts && !m.recipient && !m.from && !m.messageId && !m.since && !m.until;
        const total = kept
          ? await keptCount(q, 'message_counts', { workspace_id: workspaceId }, m.status)
          : Number((await w.select((e) => e.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
        const rows = await w.select(MESSAGE_COLUMNS).orderBy('seq', 'desc').limit(m.limit).offset(m.offset).execute();
        return { data: rows.map(toMessage), total };
      }),
    byIds: (ids) => messageReads.run(ids),
    byHeaderId: async (workspaceId, messageId) =>
      (
        await db.run((q) =>
          q
            .selectFrom('messages')
            .select(MESSAGE_COLUMNS)
            .where('workspace_id', '=', workspaceId)
            .where('message_id', '=', messageId)
            .orderBy('seq')
            .execute(),
        )
      ).map(toMessage),
    content: (id) => contentReads.run(id),
    attempts: async (workspaceId, messageId) => {
      const rows = await db.run((q) =>
        q
          .selectFrom('delivery_attempts')
          .selectAll()
          .where('workspace_id', '=', workspaceId)
          .where('message_id', '=', messageId)
          .orderBy('seq', 'desc')
          .limit(ATTEMPTS_KEPT)
          .execute(),
      );
      return rows.reverse().map(({ seq: _seq, ...r }) => ({
        ...r,
        at: iso(r.at),
        tls: r.tls === null ? null : bool(r.tls),
        dkim: r.dkim === null ? null : fromJson(r.dkim),
      }));
    },
    purge: (before) =>
      db.tx(async (q) => {
        const r = await q.deleteFrom('messages').where('created_at', '<', before).executeTakeFirst();
        // A content goes with its records, unless a job still needs it.
        await q
          .deleteFrom('send_contents as s')
          .where('s.created_at', '<', before)
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom('outbound_jobs as j').select('j.id').whereRef('j.content_id', '=', 's.id'))),
          )
          .execute();
        return Number(r.numDeletedRows);
      }),
  };

  const usage: UsageStore = {
    get: async (workspaceId, keys) => {
      const rows = keys.length
        ? await db.run((q) =>
            q
              .selectFrom('send_usage')
              .select(['window_key', 'used'])
              .where('workspace_id', '=', workspaceId)
              .where('window_key', 'in', keys)
              .execute(),
          )
        : [];
      const found = new Map(rows.map((r) => [r.window_key, r.used]));
      return Object.fromEntries(keys.map((k) => [k, found.get(k) ?? 0]));
    },
  };

  return { messages, usage };
}
