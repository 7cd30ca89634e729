// Postgres: the message aggregate's records and contents. A send's records, jobs and events go in
// one statement (several concurrent sends share it, batcher.ts); a send whose statement got no
// answer is settled by a fence, never answered with a false 503. The quota counts live here too.
// Long because the accept statement (contents, records, jobs, events, suppressions and the quota
// for a batch of sends) and the row mappings the reads share with it are one unit.
import { Batcher } from './batcher.js';
import { outcomeUnknown } from './errors.js';
import { SvcError } from '../../errors.js';
import type { Message, SendContent } from '../../model/message.js';
import type { QuotaWindow } from '../../model/quota.js';
import type { AcceptRefusal } from '../../model/refusal.js';
import type { AcceptBatch, MessageStore, UsageStore } from '../port/messages.js';
import { iso, type PgDb, type Row } from './db.js';
import { ATTEMPTS_KEPT, type DeliveryAttempt } from '../../model/attempt.js';
import { JOB_COLS } from './queue.js';

export const MESSAGE_COLS = `id, workspace_id, content_id, source, from_addr, to_addr, kind, subject, status, open_count, click_count,
  reply_count, first_open_after_seconds, message_id, error, notes, created_at, sent_at, opened_at, clicked_at, replied_at, bounced_at,
  attempts, last_error, next_attempt_at, token, via, campaign_id, subscriber`;

export type MessageRow = Omit<
  Row<Message, 'created_at' | 'sent_at' | 'opened_at' | 'clicked_at' | 'replied_at' | 'bounced_at'>,
  'from' | 'to' | 'attempts' | 'last_error' | 'next_attempt_at' | 'token' | 'via' | 'campaign_id' | 'subscriber'
> & {
  from_addr: string;
  to_addr: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | null;
  token: string;
  via: Message['via'] | null;
  campaign_id: string | null;
  subscriber: Message['subscriber'] | null;
};

export const toMessage = (r: MessageRow): Message => ({
  id: r.id,
  workspace_id: r.workspace_id,
  content_id: r.content_id,
  source: r.source,
  from: r.from_addr,
  to: r.to_addr,
  kind: r.kind,
  subject: r.subject,
  status: r.status,
  open_count: r.open_count,
  click_count: r.click_count,
  reply_count: r.reply_count,
  first_open_after_seconds: r.first_open_after_seconds,
  message_id: r.message_id,
  error: r.error,
  notes: r.notes,
  created_at: r.created_at.toISOString(),
  sent_at: iso(r.sent_at),
  opened_at: iso(r.opened_at),
  clicked_at: iso(r.clicked_at),
  replied_at: iso(r.replied_at),
  bounced_at: iso(r.bounced_at),
  // Kept once there was an attempt, as the file store keeps them (a new record has none).
  ...(r.attempts > 0 ? { attempts: r.attempts, last_error: r.last_error, next_attempt_at: iso(r.next_attempt_at) } : {}),
  token: r.token,
  ...(r.via ? { via: r.via } : {}),
  ...(r.campaign_id ? { campaign_id: r.campaign_id } : {}),
  ...(r.subscriber ? { subscriber: r.subscriber } : {}),
});

/** The refusals of svc_debit and svc_unsuppressed (each aborts its statement) as the store's answers. */
export function refusalFrom(e: unknown): AcceptRefusal {
  type PgErr = { message?: string; detail?: string; cause?: PgErr };
  const err = e as PgErr;
  const pgErr: PgErr = err.cause ?? err;
  if (pgErr.message === 'svc_quota' && pgErr.detail) {
    const d = JSON.parse(pgErr.detail) as { window: QuotaWindow; used: number };
    return { refused: 'send_quota', window: d.window, used: d.used };
  }
  if (pgErr.message === 'svc_suppressed' && pgErr.detail) return { refused: 'suppressed', addresses: JSON.parse(pgErr.detail) as string[] };
  if (pgErr.message === 'svc_campaign_moved') return { refused: 'campaign_moved' };
  if (pgErr.message === 'svc_enrolment_moved') return { refused: 'enrolment_moved' };
  throw e;
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

export type ContentRow = {
  id: string;
  workspace_id: string;
  source: SendContent['source'];
  from_addr: string;
  from_name: string | null;
  domain_id: string;
  to_list: SendContent['to'];
  cc_list: SendContent['cc'];
  subject: string;
  html: string | null;
  text_body: string | null;
  message_id: string;
  notes: string[];
  created_at: Date;
  attachments: SendContent['attachments'] | null;
  thread_id: string | null;
  in_reply_to: string | null;
  refs: string[] | null;
  preheader: string | null;
  raw: Buffer | null;
  campaign_id: string | null;
  in_sent: boolean;
};

export const toContent = (r: ContentRow): SendContent => ({
  id: r.id,
  workspace_id: r.workspace_id,
  source: r.source,
  from: r.from_addr,
  from_name: r.from_name,
  domain_id: r.domain_id,
  to: r.to_list,
  cc: r.cc_list,
  subject: r.subject,
  html: r.html,
  text: r.text_body,
  message_id: r.message_id,
  notes: r.notes,
  created_at: r.created_at.toISOString(),
  ...(r.attachments ? { attachments: r.attachments } : {}),
  ...(r.thread_id ? { thread_id: r.thread_id } : {}),
  ...(r.in_reply_to ? { in_reply_to: r.in_reply_to } : {}),
  ...(r.refs ? { references: r.refs } : {}),
  ...(r.preheader ? { preheader: r.preheader } : {}),
  ...(r.raw ? { raw: r.raw.toString('base64') } : {}),
  ...(r.campaign_id ? { campaign_id: r.campaign_id } : {}),
  ...(r.in_sent ? {} : { in_sent: false as const }),
});

export function pgMessages(
  db: PgDb,
  fenceMs = { api: FENCE_WINDOW_MS, relay: RELAY_FENCE_WINDOW_MS },
): { messages: MessageStore; usage: UsageStore } {
  // The sends of one batch (batcher.ts) in one statement, so atomic without BEGIN/COMMIT:
  // their contents, records, jobs and events; per workspace, the suppression check and the quota
  // debit (locks taken in workspace order, after the contents are in); the idempotency claims
  // completed. Any refusal aborts all of it.
  const acceptAll = async (batches: AcceptBatch[]): Promise<void[]> => {
    const sends = batches.map((b) => ({
      workspace_id: b.content.workspace_id,
      n: b.debit?.n ?? 0,
      windows: b.debit?.windows ?? [],
      unsuppressed: b.unsuppressed ?? [],
      idem_key: b.idempotency?.key ?? null,
      idem_token: b.idempotency?.token ?? null,
      idem_response: b.idempotency?.response ?? null,
      created_at: b.content.created_at,
    }));
    const contents = batches.map(({ content: k }) => ({
      id: k.id,
      workspace_id: k.workspace_id,
      source: k.source,
      from_addr: k.from,
      from_name: k.from_name,
      domain_id: k.domain_id,
      to_list: k.to,
      cc_list: k.cc,
      subject: k.subject,
      html: k.html,
      text_body: k.text,
      message_id: k.message_id,
      notes: k.notes,
      created_at: k.created_at,
      attachments: k.attachments ?? null,
      thread_id: k.thread_id ?? null,
      in_reply_to: k.in_reply_to ?? null,
      refs: k.references ?? null,
      preheader: k.preheader ?? null,
      raw: k.raw ?? null,
      campaign_id: k.campaign_id ?? null,
      in_sent: k.in_sent !== false,
    }));
    const keyed = batches.filter((b) => b.idempotency);
    const progress = batches.flatMap((b) => (b.campaign ? [b.campaign] : []));
    const steps = batches.flatMap((b) => (b.enrolment ? [b.enrolment] : []));
    await db.rows(
      `WITH sends AS (
         SELECT * FROM jsonb_to_recordset($5) AS s(workspace_id text, n int, windows jsonb, unsuppressed text[], idem_key text, idem_token text, idem_response jsonb, created_at timestamptz)),
       content AS (
         INSERT INTO send_contents (id, workspace_id, source, from_addr, from_name, domain_id, to_list, cc_list, subject, html, text_body, message_id, notes, created_at, attachments, thread_id, in_reply_to, refs, preheader, raw, campaign_id, in_sent)
         SELECT id, workspace_id, source, from_addr, from_name, domain_id, to_list, cc_list, subject, html, text_body, message_id, notes, created_at, attachments, thread_id, in_reply_to, refs, preheader, decode(raw, 'base64'), campaign_id, in_sent
           FROM jsonb_to_recordset($1) AS c(id text, workspace_id text, source text, from_addr text, from_name text, domain_id text, to_list jsonb, cc_list jsonb,
                subject text, html text, text_body text, message_id text, notes jsonb, created_at timestamptz, attachments jsonb, thread_id text, in_reply_to text, refs jsonb, preheader text, raw text,
                campaign_id text, in_sent boolean)
         RETURNING id),
       -- A suppressed recipient raises (AcceptBatch.unsuppressed) and the statement stores nothing.
       checked AS (SELECT svc_unsuppressed(workspace_id, array_agg(u)) AS ok FROM sends, unnest(unsuppressed) AS u GROUP BY workspace_id),
       -- After the contents: the quota rows are locked from here to the commit only, in workspace order.
       debit AS (
         SELECT svc_debit(g.workspace_id, g.n, g.windows) AS n
           FROM (SELECT workspace_id, sum(n)::int AS n, windows FROM sends GROUP BY workspace_id, windows ORDER BY workspace_id) AS g,
                (SELECT count(*) FROM content) AS c, (SELECT count(*) FROM checked) AS k),
       idem AS (
         -- The keys again as arrays ($8, $9): with them the claims are found through the primary key.
         -- Joined to the JSON records alone (estimated at 100 rows), the plan read the whole table,
         -- a day of every send's keys, for each batch.
         UPDATE idempotency_keys i SET state = 'completed', response = s.idem_response, created_at = s.created_at
           FROM sends s WHERE i.workspace_id = ANY($8::text[]) AND i.key = ANY($9::text[])
            AND s.idem_key IS NOT NULL AND i.workspace_id = s.workspace_id AND i.key = s.idem_key AND i.token = s.idem_token
            AND EXISTS (SELECT 1 FROM debit)),
       msgs AS (
         INSERT INTO messages (${MESSAGE_COLS})
         SELECT id, workspace_id, content_id, source, "from", "to", kind, subject, status, open_count, click_count, reply_count,
                first_open_after_seconds, message_id, error, notes, created_at, sent_at, opened_at, clicked_at, replied_at, bounced_at, 0, NULL, NULL, token, via, campaign_id, subscriber
           FROM jsonb_to_recordset($2) AS m(id text, workspace_id text, content_id text, source text, "from" text, "to" text, kind text,
                subject text, status text, open_count int, click_count int, reply_count int, first_open_after_seconds int, message_id text,
                error text, notes jsonb, created_at timestamptz, sent_at timestamptz, opened_at timestamptz, clicked_at timestamptz, replied_at timestamptz,
                bounced_at timestamptz, token text, via jsonb, campaign_id text, subscriber jsonb)),
       -- A fan-out batch moves its campaign on in the same statement (positions only grow).
       -- A fan-out batch moves its campaign on in the same statement, or raises when another
       -- daemon's batch moved it first (nothing is stored).
       progress AS (SELECT svc_campaign_progress(p) FROM jsonb_array_elements($6) AS p, (SELECT count(*) FROM debit) AS d),
       -- A sequence step's send moves its enrolment on likewise (svc_enrolment_step).
       stepped AS (SELECT svc_enrolment_step(p) FROM jsonb_array_elements($7) AS p, (SELECT count(*) FROM debit) AS d),
       jobs AS (
         INSERT INTO outbound_jobs (${JOB_COLS})
         SELECT id, workspace_id, content_id, domain, message_ids, attempts, next_attempt_at, created_at, last_error, COALESCE(priority, 0), COALESCE(held, false)
           FROM jsonb_to_recordset($3) AS j(id text, workspace_id text, content_id text, domain text, message_ids jsonb,
                attempts int, next_attempt_at timestamptz, created_at timestamptz, last_error text, priority int, held boolean)),
       events AS (
         INSERT INTO outbox_events (id, workspace_id, event, message_id, payload, created_at)
         SELECT id, workspace_id, event, message_id, payload, created_at
           FROM jsonb_to_recordset($4) AS e(id text, workspace_id text, event text, message_id text, payload jsonb, created_at timestamptz))
       SELECT count(*) FROM debit, (SELECT count(*) FROM progress) AS pr, (SELECT count(*) FROM stepped) AS st`,
      [
        JSON.stringify(contents),
        JSON.stringify(batches.flatMap((b) => b.messages)),
        JSON.stringify(batches.flatMap((b) => b.jobs)),
        JSON.stringify(batches.flatMap((b) => b.events)),
        JSON.stringify(sends),
        JSON.stringify(progress),
        JSON.stringify(steps),
        // Each once: the index is searched for every pair of the two lists.
        [...new Set(keyed.map((b) => b.content.workspace_id))],
        [...new Set(keyed.map((b) => b.idempotency!.key))],
      ],
      'messages_accept',
    );
    return batches.map(() => undefined);
  };
  const accepts = new Batcher<AcceptBatch, void>(acceptAll, 2, 100, outcomeUnknown);

  /**
   * After a send's statement got no answer, did it commit? A fence answers for good: a placeholder
   * row under the send's content id. If the send committed, its row is there and the fence does
   * nothing (answer: accepted). If not, the fence takes the id, so the statement, should it still
   * run later (a server that thaws), fails on it and stores nothing (answer: refused). While the
   * send's statement is still running, the fence waits for it on the key. Fences stay (a few bytes;
   * a fenced id is never used again). Tried for the window of the send's source; past it the outcome
   * is unknown.
   */
  const committed = async (content: AcceptBatch['content']): Promise<boolean> => {
    const windowMs = content.source === 'relay' ? fenceMs.relay : fenceMs.api;
    const deadline = Date.now() + windowMs;
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      try {
        const rows = await db.rows(
          `INSERT INTO send_contents (id, workspace_id, source, from_addr, domain_id, to_list, cc_list, subject, message_id, created_at)
           VALUES ($1, $2, 'fence', '', '', '[]', '[]', '', '', now()) ON CONFLICT (id) DO NOTHING RETURNING id`,
          [content.id, content.workspace_id],
          'accept_fence',
        );
        return rows.length === 0;
      } catch (e) {
        if (!(e instanceof SvcError && e.kind === 'store_unavailable') || Date.now() + delay > deadline) {
          throw new SvcError(
            'store_unavailable',
            `store unavailable: whether this send was queued is unknown (no answer from postgres for ${Math.round(windowMs / 1000)} s); retry with the same Idempotency-Key`,
            { cause: e },
          );
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  const messages: MessageStore = {
    // A send whose statement got no answer is answered from a fence, never a false 503.
    accept: async (batch) =>
      accepts.run(batch).then(
        () => null,
        async (e: unknown) => {
          if (outcomeUnknown(e) && (await committed(batch.content))) return null;
          return refusalFrom(e);
        },
      ),
    // A command-line lookup: the workspace's rows by index, the prefix checked on each.
    idsWithPrefix: async (workspaceId, prefix, limit) =>
      (
        await db.rows<{ id: string }>(
          `SELECT id FROM messages WHERE workspace_id = $1 AND starts_with(id, $2) LIMIT $3`,
          [workspaceId, prefix, limit],
          'message_ids_prefix',
        )
      ).map((r) => r.id),
    get: async (workspaceId, id) => {
      const [r] = await db.rows<MessageRow>(
        `SELECT ${MESSAGE_COLS} FROM messages WHERE workspace_id = $1 AND id = $2`,
        [workspaceId, id],
        'message_get',
      );
      return r ? toMessage(r) : null;
    },
    list: async (workspaceId, q) => {
      const where = ['workspace_id = $1'];
      const values: unknown[] = [workspaceId];
      if (q.status) {
        values.push(q.status);
        where.push(`status = $${values.length}`);
      }
      const like = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`;
      if (q.recipient) {
        values.push(like(q.recipient));
        where.push(`lower(to_addr) LIKE $${values.length}`);
      }
      if (q.from) {
        values.push(like(q.from));
        where.push(`lower(from_addr) LIKE $${values.length}`);
      }
      if (q.messageId) {
        values.push(q.messageId);
        where.push(`message_id = $${values.length}`);
      }
      if (q.since) {
        values.push(q.since);
        where.push(`created_at >= $${values.length}`);
      }
      if (q.until) {
        values.push(q.until);
        where.push(`created_at < $${values.length}`);
      }
      const [{ n }] = (await db.rows<{ n: string }>(`SELECT count(*) AS n FROM messages WHERE ${where.join(' AND ')}`, values)) as [
        { n: string },
      ];
      const rows = await db.rows<MessageRow>(
        `SELECT ${MESSAGE_COLS} FROM messages WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, q.limit, q.offset],
      );
      return { data: rows.map(toMessage), total: Number(n) };
    },
    byIds: (ids) => messageReads.run(ids),
    byHeaderId: async (workspaceId, messageId) =>
      (
        await db.rows<MessageRow>(
          `SELECT ${MESSAGE_COLS} FROM messages WHERE workspace_id = $1 AND message_id = $2 ORDER BY seq`,
          [workspaceId, messageId],
          'messages_by_header',
        )
      ).map(toMessage),
    content: (id) => contentReads.run(id),
    attempts: async (workspaceId, messageId) =>
      (
        await db.rows<Row<DeliveryAttempt, 'at'> & { seq: string }>(
          `SELECT * FROM (SELECT seq, id, workspace_id, message_id, attempt, at, duration_ms, host, ip, tls, outcome, class, reply, dkim FROM delivery_attempts
          WHERE workspace_id = $1 AND message_id = $2 ORDER BY seq DESC LIMIT ${ATTEMPTS_KEPT}) AS newest ORDER BY seq`,
          [workspaceId, messageId],
          'delivery_attempts',
        )
      ).map(({ seq: _seq, ...r }) => ({ ...r, at: r.at.toISOString() })),
    purge: async (before) =>
      db.tx(async (c) => {
        const r = await c.query(`DELETE FROM messages WHERE created_at < $1`, [before]);
        await c.query(
          `DELETE FROM send_contents s WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM outbound_jobs j WHERE j.content_id = s.id)`,
          [before],
        );
        return r.rowCount ?? 0;
      }),
  };

  // The reads of concurrent hand-offs (a worker runs dozens at once), one statement for each kind.
  const contentReads = new Batcher<string, SendContent | null>(async (ids) => {
    // What delivery needs: the content of a send with jobs left (a finished one is only its Sent copy).
    const rows = await db.rows<ContentRow>(
      `SELECT * FROM send_contents c WHERE id = ANY($1) AND EXISTS (SELECT 1 FROM outbound_jobs j WHERE j.content_id = c.id)`,
      [ids],
      'content_get',
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const r = byId.get(id);
      return r ? toContent(r) : null;
    });
  });
  const messageReads = new Batcher<string[], Message[]>(async (lists) => {
    const rows = await db.rows<MessageRow>(
      `SELECT ${MESSAGE_COLS} FROM messages WHERE id = ANY($1) ORDER BY seq`,
      [[...new Set(lists.flat())]],
      'messages_by_ids',
    );
    // Each caller gets records of its own, in creation order.
    return lists.map((ids) => {
      const wanted = new Set(ids);
      return rows.filter((r) => wanted.has(r.id)).map(toMessage);
    });
  });

  const usage: UsageStore = {
    get: async (workspaceId, keys) => {
      const rows = await db.rows<{ window_key: string; used: number }>(
        `SELECT window_key, used FROM send_usage WHERE workspace_id = $1 AND window_key = ANY($2)`,
        [workspaceId, keys],
      );
      const found = new Map(rows.map((r) => [r.window_key, r.used]));
      return Object.fromEntries(keys.map((k) => [k, found.get(k) ?? 0]));
    },
  };

  return { messages, usage };
}
