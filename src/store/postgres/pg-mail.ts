// The Postgres side of messages, contents, the outbound queue, the outbox and suppressions. A send's
// records, jobs and events go in one transaction; the queue is claimed with FOR UPDATE SKIP LOCKED
// and a lease, so several daemons never hand the same job off at once and a crashed one's jobs are
// taken again when its lease ends.
import type pg from 'pg';
import { Batcher } from './batcher.js';
import { outcomeUnknown } from './errors.js';
import { SvcError } from '../../errors.js';
import { sendQuotaReached } from '../../workspaces/send-quota.js';
import { suppressedRecipients } from '../../suppressions/refusal.js';
import type {
  AcceptBatch,
  IdempotencyStore,
  QuotaWindow,
  RateLimitStore,
  StoredResponse,
  UsageStore,
  JobOutcome,
  Message,
  MessageStore,
  OutboundJob,
  OutboxEvent,
  OutboxStore,
  QueueStore,
  SendContent,
  Suppression,
  SuppressionStore,
} from '../types.js';

export interface PgDb {
  rows<R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string): Promise<R[]>;
  tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T>;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

const MESSAGE_COLS = `id, workspace_id, content_id, source, from_addr, to_addr, kind, subject, status, open_count, click_count,
  reply_count, first_open_after_seconds, message_id, error, notes, created_at, sent_at, opened_at, clicked_at, replied_at, bounced_at,
  attempts, last_error, next_attempt_at`;

interface MessageRow {
  id: string;
  workspace_id: string;
  content_id: string;
  source: Message['source'];
  from_addr: string;
  to_addr: string;
  kind: Message['kind'];
  subject: string;
  status: Message['status'];
  open_count: number;
  click_count: number;
  reply_count: number;
  first_open_after_seconds: number | null;
  message_id: string;
  error: string | null;
  notes: string[];
  created_at: Date;
  sent_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  replied_at: Date | null;
  bounced_at: Date | null;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | null;
}

const toMessage = (r: MessageRow): Message => ({
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
});

interface JobRow {
  id: string;
  workspace_id: string;
  content_id: string;
  domain: string;
  message_ids: string[];
  open_token: string;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  last_error: string | null;
}

const toJob = (r: JobRow): OutboundJob => ({
  id: r.id,
  workspace_id: r.workspace_id,
  content_id: r.content_id,
  domain: r.domain,
  message_ids: r.message_ids,
  open_token: r.open_token,
  attempts: r.attempts,
  next_attempt_at: r.next_attempt_at.toISOString(),
  created_at: r.created_at.toISOString(),
  last_error: r.last_error,
});

const JOB_COLS = 'id, workspace_id, content_id, domain, message_ids, open_token, attempts, next_attempt_at, created_at, last_error';

interface SuppressionRow {
  workspace_id: string;
  address: string;
  reason: Suppression['reason'];
  detail: string | null;
  created_at: Date;
  message_id: string | null;
  class: string | null;
}
const toSuppression = (r: SuppressionRow): Suppression => ({
  workspace_id: r.workspace_id,
  address: r.address,
  reason: r.reason,
  detail: r.detail,
  created_at: r.created_at.toISOString(),
  ...(r.message_id ? { message_id: r.message_id } : {}),
  ...(r.class ? { class: r.class } : {}),
});

/** The refusals of svc_debit and svc_unsuppressed (each aborts its statement) as the store's errors. */
function refusalFrom(e: unknown): never {
  type PgErr = { message?: string; detail?: string; cause?: PgErr };
  const err = e as PgErr;
  const pgErr: PgErr = err.cause ?? err;
  if (pgErr.message === 'svc_quota' && pgErr.detail) {
    const d = JSON.parse(pgErr.detail) as { window: QuotaWindow; used: number };
    throw sendQuotaReached(d.window, d.used);
  }
  if (pgErr.message === 'svc_suppressed' && pgErr.detail) throw suppressedRecipients(JSON.parse(pgErr.detail) as string[]);
  throw e;
}

/** How long a send whose statement got no answer keeps trying to learn whether it was queued. */
export const FENCE_WINDOW_MS = 60_000;

export function pgMailStores(db: PgDb): {
  messages: MessageStore;
  queue: QueueStore;
  outbox: OutboxStore;
  suppressions: SuppressionStore;
  idempotency: IdempotencyStore;
  rateLimit: RateLimitStore;
  usage: UsageStore;
} {
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
      id: k.id, workspace_id: k.workspace_id, source: k.source, from_addr: k.from, from_name: k.from_name, domain_id: k.domain_id, to_list: k.to, cc_list: k.cc,
      subject: k.subject, html: k.html, text_body: k.text, message_id: k.message_id, notes: k.notes, created_at: k.created_at, attachments: k.attachments ?? null,
    }));
    await db.rows(
      `WITH sends AS (
         SELECT * FROM jsonb_to_recordset($5) AS s(workspace_id text, n int, windows jsonb, unsuppressed text[], idem_key text, idem_token text, idem_response jsonb, created_at timestamptz)),
       content AS (
         INSERT INTO send_contents (id, workspace_id, source, from_addr, from_name, domain_id, to_list, cc_list, subject, html, text_body, message_id, notes, created_at, attachments)
         SELECT id, workspace_id, source, from_addr, from_name, domain_id, to_list, cc_list, subject, html, text_body, message_id, notes, created_at, attachments
           FROM jsonb_to_recordset($1) AS c(id text, workspace_id text, source text, from_addr text, from_name text, domain_id text, to_list jsonb, cc_list jsonb,
                subject text, html text, text_body text, message_id text, notes jsonb, created_at timestamptz, attachments jsonb)
         RETURNING id),
       -- A suppressed recipient raises (AcceptBatch.unsuppressed) and the statement stores nothing.
       checked AS (SELECT svc_unsuppressed(workspace_id, array_agg(u)) AS ok FROM sends, unnest(unsuppressed) AS u GROUP BY workspace_id),
       -- After the contents: the quota rows are locked from here to the commit only, in workspace order.
       debit AS (
         SELECT svc_debit(g.workspace_id, g.n, g.windows) AS n
           FROM (SELECT workspace_id, sum(n)::int AS n, windows FROM sends GROUP BY workspace_id, windows ORDER BY workspace_id) AS g,
                (SELECT count(*) FROM content) AS c, (SELECT count(*) FROM checked) AS k),
       idem AS (
         UPDATE idempotency_keys i SET state = 'completed', response = s.idem_response, created_at = s.created_at
           FROM sends s WHERE s.idem_key IS NOT NULL AND i.workspace_id = s.workspace_id AND i.key = s.idem_key AND i.token = s.idem_token
            AND EXISTS (SELECT 1 FROM debit)),
       msgs AS (
         INSERT INTO messages (${MESSAGE_COLS})
         SELECT id, workspace_id, content_id, source, "from", "to", kind, subject, status, open_count, click_count, reply_count,
                first_open_after_seconds, message_id, error, notes, created_at, sent_at, opened_at, clicked_at, replied_at, bounced_at, 0, NULL, NULL
           FROM jsonb_to_recordset($2) AS m(id text, workspace_id text, content_id text, source text, "from" text, "to" text, kind text,
                subject text, status text, open_count int, click_count int, reply_count int, first_open_after_seconds int, message_id text,
                error text, notes jsonb, created_at timestamptz, sent_at timestamptz, opened_at timestamptz, clicked_at timestamptz, replied_at timestamptz,
                bounced_at timestamptz)),
       jobs AS (
         INSERT INTO outbound_jobs (${JOB_COLS})
         SELECT id, workspace_id, content_id, domain, message_ids, open_token, attempts, next_attempt_at, created_at, last_error
           FROM jsonb_to_recordset($3) AS j(id text, workspace_id text, content_id text, domain text, message_ids jsonb, open_token text,
                attempts int, next_attempt_at timestamptz, created_at timestamptz, last_error text)),
       events AS (
         INSERT INTO outbox_events (id, workspace_id, event, message_id, payload, created_at)
         SELECT id, workspace_id, event, message_id, payload, created_at
           FROM jsonb_to_recordset($4) AS e(id text, workspace_id text, event text, message_id text, payload jsonb, created_at timestamptz))
       SELECT count(*) FROM debit`,
      [
        JSON.stringify(contents),
        JSON.stringify(batches.flatMap((b) => b.messages)),
        JSON.stringify(batches.flatMap((b) => b.jobs)),
        JSON.stringify(batches.flatMap((b) => b.events)),
        JSON.stringify(sends),
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
   * a fenced id is never used again). Tried until FENCE_WINDOW_MS; past it the outcome is unknown.
   */
  const committed = async (content: AcceptBatch['content']): Promise<boolean> => {
    const deadline = Date.now() + FENCE_WINDOW_MS;
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
          throw new SvcError('store_unavailable', `store unavailable: whether this send was queued is unknown (no answer from postgres for ${Math.round(FENCE_WINDOW_MS / 1000)} s); retry with the same Idempotency-Key`, { cause: e });
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  // Idempotency claims of concurrent requests, in one statement (two claims of the same key in one
  // batch make it fail, and then each runs alone). A claim is won by inserting the key, or by taking
  // over a completed one past its lifetime or a running one whose request must have died.
  type Claim = { workspace_id: string; key: string; token: string; now: string; ttl_ms: number; running_ttl_ms: number; fingerprint: string | null };
  const claims = new Batcher<Claim, boolean>(async (items) => {
    const [first] = items as [Claim];
    // One statement answers for one pair of lifetimes (the service uses one); others go alone.
    if (items.some((c) => c.ttl_ms !== first.ttl_ms || c.running_ttl_ms !== first.running_ttl_ms)) throw new Error('mixed lifetimes');
    const won = await db.rows<{ token: string }>(
      // A running claim is alive while its request beats (heartbeat_at, the database's clock, one
      // for every daemon); a completed one lives its 24 hours by the caller's clock.
      `INSERT INTO idempotency_keys (workspace_id, key, state, token, created_at, fingerprint, heartbeat_at)
       SELECT workspace_id, key, 'running', token, now, fingerprint, now() FROM jsonb_to_recordset($1) AS c(workspace_id text, key text, token text, now timestamptz, fingerprint text)
       ON CONFLICT (workspace_id, key) DO UPDATE SET state = 'running', token = EXCLUDED.token, created_at = EXCLUDED.created_at, response = NULL, fingerprint = EXCLUDED.fingerprint,
              heartbeat_at = now()
        WHERE idempotency_keys.created_at < EXCLUDED.created_at - $2 * interval '1 millisecond'
           OR (idempotency_keys.state = 'running'
               AND COALESCE(idempotency_keys.heartbeat_at < now() - $3 * interval '1 millisecond',
                            idempotency_keys.created_at < EXCLUDED.created_at - $3 * interval '1 millisecond'))
       RETURNING token`,
      [JSON.stringify(items), first.ttl_ms, first.running_ttl_ms],
      'idem_claim',
    );
    const tokens = new Set(won.map((w) => w.token));
    return items.map((c) => tokens.has(c.token));
  });

  const messages: MessageStore = {
    // A send whose statement got no answer is answered from a fence, never a false 503.
    accept: async (batch) =>
      accepts.run(batch).catch(async (e: unknown) => {
        if (outcomeUnknown(e) && (await committed(batch.content))) return;
        return refusalFrom(e);
      }),
    get: async (workspaceId, id) => {
      const [r] = await db.rows<MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE workspace_id = $1 AND id = $2`, [workspaceId, id], 'message_get');
      return r ? toMessage(r) : null;
    },
    list: async (workspaceId, q) => {
      const where = ['workspace_id = $1'];
      const values: unknown[] = [workspaceId];
      if (q.status) {
        values.push(q.status);
        where.push(`status = $${values.length}`);
      }
      if (q.recipient) {
        values.push(`%${q.recipient.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`);
        where.push(`lower(to_addr) LIKE $${values.length}`);
      }
      const [{ n }] = (await db.rows<{ n: string }>(`SELECT count(*) AS n FROM messages WHERE ${where.join(' AND ')}`, values)) as [{ n: string }];
      const rows = await db.rows<MessageRow>(
        `SELECT ${MESSAGE_COLS} FROM messages WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, q.limit, q.offset],
      );
      return { data: rows.map(toMessage), total: Number(n) };
    },
    byIds: (ids) => messageReads.run(ids),
    content: (id) => contentReads.run(id),
    purge: async (before) =>
      db.tx(async (c) => {
        const r = await c.query(`DELETE FROM messages WHERE created_at < $1`, [before]);
        await c.query(`DELETE FROM send_contents s WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM outbound_jobs j WHERE j.content_id = s.id)`, [before]);
        return r.rowCount ?? 0;
      }),
  };

  // The reads of concurrent hand-offs (a worker runs dozens at once), one statement for each kind.
  type ContentRow = { id: string; workspace_id: string; source: SendContent['source']; from_addr: string; from_name: string | null; domain_id: string; to_list: SendContent['to']; cc_list: SendContent['cc']; subject: string; html: string | null; text_body: string | null; message_id: string; notes: string[]; created_at: Date; attachments: SendContent['attachments'] | null };
  const contentReads = new Batcher<string, SendContent | null>(async (ids) => {
    const rows = await db.rows<ContentRow>(`SELECT * FROM send_contents WHERE id = ANY($1)`, [ids], 'content_get');
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const r = byId.get(id);
      return r ? { id: r.id, workspace_id: r.workspace_id, source: r.source, from: r.from_addr, from_name: r.from_name, domain_id: r.domain_id, to: r.to_list, cc: r.cc_list, subject: r.subject, html: r.html, text: r.text_body, message_id: r.message_id, notes: r.notes, created_at: r.created_at.toISOString(), ...(r.attachments ? { attachments: r.attachments } : {}) } : null;
    });
  });
  const messageReads = new Batcher<string[], Message[]>(async (lists) => {
    const rows = await db.rows<MessageRow>(`SELECT ${MESSAGE_COLS} FROM messages WHERE id = ANY($1) ORDER BY seq`, [[...new Set(lists.flat())]], 'messages_by_ids');
    // Each caller gets records of its own, in creation order.
    return lists.map((ids) => {
      const wanted = new Set(ids);
      return rows.filter((r) => wanted.has(r.id)).map(toMessage);
    });
  });

  // Completions of concurrent hand-offs, in one statement (one round trip instead of seven per
  // job): the jobs are locked in id order, their messages updated, events and suppressions
  // written, each job retried or deleted, and a content dropped with its last job. A job that is
  // not pending (completed elsewhere) is skipped. Suppressions go in address order, so that two
  // batches never wait on each other in opposite orders.
  const completions = new Batcher<{ jobId: string; outcome: JobOutcome }, void>(async (items) => {
    const input = items.map(({ jobId, outcome }) => ({ job_id: jobId, updates: outcome.updates, events: outcome.events, suppressions: outcome.suppressions, retry: outcome.retry ?? null }));
    await db.rows(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1) AS x(job_id text, updates jsonb, events jsonb, suppressions jsonb, retry jsonb)
       ), job AS (
         SELECT j.id, j.content_id, i.updates, i.events, i.suppressions, NULLIF(i.retry, 'null'::jsonb) AS retry
           FROM outbound_jobs j JOIN input i ON i.job_id = j.id ORDER BY j.id FOR UPDATE OF j
       ), updated AS (
         UPDATE messages m SET status = COALESCE(u.status, m.status), error = COALESCE(u.error, m.error),
                sent_at = COALESCE(u.sent_at, m.sent_at), bounced_at = COALESCE(u.bounced_at, m.bounced_at),
                attempts = COALESCE(u.attempts, m.attempts), last_error = COALESCE(u.last_error, m.last_error),
                -- An attempt's update always sets (or clears) when the next one is due.
                next_attempt_at = CASE WHEN u.attempts IS NULL THEN m.next_attempt_at ELSE u.next_attempt_at END
           FROM job, jsonb_to_recordset(job.updates) AS u(id text, status text, error text, sent_at timestamptz, bounced_at timestamptz,
                attempts int, last_error text, next_attempt_at timestamptz)
          WHERE m.id = u.id
         RETURNING 1
       ), evented AS (
         INSERT INTO outbox_events (id, workspace_id, event, message_id, payload, created_at)
         SELECT e.id, e.workspace_id, e.event, e.message_id, e.payload, e.created_at
           FROM job, jsonb_to_recordset(job.events) AS e(id text, workspace_id text, event text, message_id text, payload jsonb, created_at timestamptz)
         RETURNING 1
       ), suppressed AS (
         INSERT INTO suppressions (workspace_id, address, reason, detail, created_at, message_id, class)
         SELECT s.workspace_id, s.address, s.reason, s.detail, s.created_at, s.message_id, s.class
           FROM job, jsonb_to_recordset(job.suppressions) AS s(workspace_id text, address text, reason text, detail text, created_at timestamptz, message_id text, class text)
          ORDER BY s.workspace_id, s.address
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), retried AS (
         UPDATE outbound_jobs o SET message_ids = job.retry->'message_ids', next_attempt_at = (job.retry->>'next_attempt_at')::timestamptz,
                last_error = job.retry->>'last_error', attempts = o.attempts + 1, lease_owner = NULL, lease_until = NULL
           FROM job WHERE o.id = job.id AND job.retry IS NOT NULL
         RETURNING 1
       ), done AS (
         DELETE FROM outbound_jobs o USING job WHERE o.id = job.id AND job.retry IS NULL
         RETURNING o.id, o.content_id
       )
       -- Every part of the statement sees the queue as it was before it: the jobs deleted here
       -- are left out by hand.
       DELETE FROM send_contents c
        WHERE c.id IN (SELECT content_id FROM done)
          AND NOT EXISTS (SELECT 1 FROM outbound_jobs o WHERE o.content_id = c.id AND o.id NOT IN (SELECT id FROM done))`,
      [JSON.stringify(input)],
      'queue_complete',
    );
    return items.map(() => undefined);
  });

  const queue: QueueStore = {
    // Leases use the database's clock, one for every daemon: a daemon whose clock runs ahead
    // never takes a live job of another. A job never tried is due at once, so a daemon whose clock
    // runs behind still takes the others' new jobs at once; retries are due by the caller's clock.
    claim: async (owner, now, leaseMs, max) => {
      const rows = await db.rows<JobRow>(
        `UPDATE outbound_jobs SET lease_owner = $1, lease_until = now() + $3 * interval '1 millisecond'
          WHERE id IN (SELECT id FROM outbound_jobs
                        WHERE (attempts = 0 OR next_attempt_at <= $2)
                          AND (lease_until IS NULL OR lease_until <= now())
                        ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
          RETURNING ${JOB_COLS}`,
        [owner, now, leaseMs, max],
        'queue_claim',
      );
      return rows.map(toJob);
    },
    renew: async (owner, jobIds, _now, leaseMs) => {
      if (!jobIds.length) return;
      await db.rows(`UPDATE outbound_jobs SET lease_until = now() + $3 * interval '1 millisecond' WHERE id = ANY($2) AND lease_owner = $1`, [owner, jobIds, leaseMs], 'queue_renew');
    },
    complete: (jobId, outcome: JobOutcome) => completions.run({ jobId, outcome }),
    depth: async () => Number((await db.rows<{ n: string }>(`SELECT count(*) AS n FROM outbound_jobs`, []))[0]!.n),
  };

  const outbox: OutboxStore = {
    pending: async (limit) =>
      (await db.rows<{ id: string; workspace_id: string; event: OutboxEvent['event']; message_id: string; payload: Record<string, unknown>; created_at: Date }>(
        `SELECT id, workspace_id, event, message_id, payload, created_at FROM outbox_events WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1`,
        [limit],
      )).map((r) => ({ ...r, created_at: r.created_at.toISOString() })),
  };

  const suppressions: SuppressionStore = {
    list: async (workspaceId) => (await db.rows<SuppressionRow>(`SELECT * FROM suppressions WHERE workspace_id = $1 ORDER BY created_at, address`, [workspaceId])).map(toSuppression),
    add: async (s) => {
      const [r] = await db.rows<SuppressionRow>(
        `WITH ins AS (INSERT INTO suppressions (workspace_id, address, reason, detail, created_at, message_id, class) VALUES ($1, $2, $3, $4, $5, $6, $7)
                       ON CONFLICT DO NOTHING RETURNING *)
         SELECT * FROM ins UNION ALL SELECT * FROM suppressions WHERE workspace_id = $1 AND address = $2 LIMIT 1`,
        [s.workspace_id, s.address, s.reason, s.detail, s.created_at, s.message_id ?? null, s.class ?? null],
      );
      return toSuppression(r!);
    },
    remove: async (workspaceId, address) => (await db.rows(`DELETE FROM suppressions WHERE workspace_id = $1 AND address = $2 RETURNING address`, [workspaceId, address])).length > 0,
    find: async (workspaceId, addresses) =>
      addresses.length ? (await db.rows<SuppressionRow>(`SELECT * FROM suppressions WHERE workspace_id = $1 AND address = ANY($2)`, [workspaceId, addresses], 'suppression_find')).map(toSuppression) : [],
  };

  const idempotency: IdempotencyStore = {
    claim: async (workspaceId, key, token, now, ttlMs, runningTtlMs, fingerprint = null) => {
      if (await claims.run({ workspace_id: workspaceId, key, token, now, ttl_ms: ttlMs, running_ttl_ms: runningTtlMs, fingerprint })) return { state: 'claimed' };
      const [cur] = await db.rows<{ state: 'running' | 'completed'; response: StoredResponse | null; fingerprint: string | null }>(
        `SELECT state, response, fingerprint FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
        [workspaceId, key],
      );
      if (!cur) throw new SvcError('store_unavailable', 'idempotency key vanished while claiming it; retry');
      const fp = cur.fingerprint ? { fingerprint: cur.fingerprint } : {};
      return cur.state === 'completed' ? { state: 'completed', response: cur.response!, ...fp } : { state: 'running', ...fp };
    },
    release: async (workspaceId, key, token) => {
      await db.rows(`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND token = $3 AND state = 'running'`, [workspaceId, key, token]);
    },
    renew: async (workspaceId, key, token) => {
      await db.rows(`UPDATE idempotency_keys SET heartbeat_at = now() WHERE workspace_id = $1 AND key = $2 AND token = $3 AND state = 'running'`, [workspaceId, key, token], 'idem_renew');
    },
  };

  const rateLimit: RateLimitStore = {
    hit: async (keyId, now, windowMs, limit, want) => {
      const [r] = await db.rows<{ granted: number; retry_after_ms: string }>(`SELECT * FROM svc_rate_hit($1, $2, $3, $4, $5)`, [keyId, now, windowMs, limit, want], 'rate_hit');
      return { granted: r!.granted, retryAfterMs: Number(r!.retry_after_ms) };
    },
  };

  const usage: UsageStore = {
    get: async (workspaceId, keys) => {
      const rows = await db.rows<{ window_key: string; used: number }>(`SELECT window_key, used FROM send_usage WHERE workspace_id = $1 AND window_key = ANY($2)`, [workspaceId, keys]);
      const found = new Map(rows.map((r) => [r.window_key, r.used]));
      return Object.fromEntries(keys.map((k) => [k, found.get(k) ?? 0]));
    },
  };

  return { messages, queue, outbox, suppressions, idempotency, rateLimit, usage };
}
