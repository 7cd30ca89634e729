// The Postgres side of webhooks: endpoints, the jobs that carry outbox events to them (claimed with
// FOR UPDATE SKIP LOCKED and a lease, so several daemons never send one job at once) and the
// delivery log. Fan-out takes undispatched outbox events and marks them in the same statement.
import type { AttemptRecord, WebhookAttempt, WebhookEndpoint, WebhookJob } from '../../model/webhook.js';
import type { WebhookEndpointStore, WebhookStore } from '../port/webhooks.js';
import { iso, type PgDb, type Row } from './db.js';
import { claimStatement, RELEASED } from './lease.js';

const ENDPOINT_COLS =
  'id, workspace_id, url, events, secret, status, disabled_reason, failing_since, created_at, secret_rotated_at, previous_secret, previous_secret_until';

type EndpointRow = Row<WebhookEndpoint, 'failing_since' | 'created_at' | 'secret_rotated_at' | 'previous_secret_until'>;

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  workspace_id: r.workspace_id,
  url: r.url,
  events: r.events,
  secret: r.secret,
  status: r.status,
  disabled_reason: r.disabled_reason,
  failing_since: iso(r.failing_since),
  created_at: r.created_at.toISOString(),
  secret_rotated_at: iso(r.secret_rotated_at),
  previous_secret: r.previous_secret ?? null,
  previous_secret_until: iso(r.previous_secret_until ?? null),
});

const JOB_COLS = 'id, workspace_id, endpoint_id, event_id, event, message_id, payload, attempts, next_attempt_at, created_at';

type JobRow = Row<Omit<WebhookJob, 'state'>, 'next_attempt_at' | 'created_at'>;

const toJob = (r: JobRow): WebhookJob => ({
  id: r.id,
  workspace_id: r.workspace_id,
  endpoint_id: r.endpoint_id,
  event_id: r.event_id,
  event: r.event,
  message_id: r.message_id,
  payload: r.payload,
  state: 'pending',
  attempts: r.attempts,
  next_attempt_at: r.next_attempt_at.toISOString(),
  created_at: r.created_at.toISOString(),
});

const ATTEMPT_COLS =
  'id, workspace_id, endpoint_id, job_id, event_id, event, message_id, payload, kind, attempt, ok, status_code, error, response, duration_ms, attempted_at';

type AttemptRow = Omit<WebhookAttempt, 'attempted_at'> & { attempted_at: Date };
const toAttempt = (r: AttemptRow): WebhookAttempt => ({ ...r, attempted_at: r.attempted_at.toISOString() });

/**
 * Per endpoint, where its run of failures stands after these attempts (in order): null after a
 * success, else when the trailing failures began (kept as is when the run started earlier).
 */
function failingAfter(records: AttemptRecord[]): Array<{ id: string; ok: boolean; since: string }> {
  const by = new Map<string, { ok: boolean; since: string }>();
  for (const { attempt: a } of records) {
    const cur = by.get(a.endpoint_id);
    by.set(a.endpoint_id, a.ok ? { ok: true, since: a.attempted_at } : { ok: false, since: cur && !cur.ok ? cur.since : a.attempted_at });
  }
  return [...by].map(([id, v]) => ({ id, ...v }));
}

const CLAIM = claimStatement({
  table: 'webhook_jobs',
  alias: 'j',
  join: "JOIN webhook_endpoints ep ON ep.id = j.endpoint_id AND ep.status = 'enabled'",
  due: 'j.next_attempt_at <= $2 OR (j.attempts = 0 AND j.next_attempt_at <= now())',
  returning: JOB_COLS,
});

export function pgWebhooks(db: PgDb): { endpoints: WebhookEndpointStore; webhooks: WebhookStore } {
  const endpoints: WebhookEndpointStore = {
    create: async (e) => {
      const [r] = await db.rows<EndpointRow>(
        `INSERT INTO webhook_endpoints (${ENDPOINT_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, $10, $11) RETURNING ${ENDPOINT_COLS}`,
        [
          e.id,
          e.workspace_id,
          e.url,
          e.events,
          e.secret,
          e.status,
          e.disabled_reason,
          e.created_at,
          e.secret_rotated_at,
          e.previous_secret,
          e.previous_secret_until,
        ],
      );
      return toEndpoint(r!);
    },
    listByWorkspace: async (workspaceId) =>
      (
        await db.rows<EndpointRow>(`SELECT ${ENDPOINT_COLS} FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])
      ).map(toEndpoint),
    get: async (workspaceId, id) => {
      const [r] = await db.rows<EndpointRow>(`SELECT ${ENDPOINT_COLS} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`, [
        workspaceId,
        id,
      ]);
      return r ? toEndpoint(r) : null;
    },
    update: async (workspaceId, id, patch) => {
      const [r] = await db.rows<EndpointRow>(
        `UPDATE webhook_endpoints SET
            status = COALESCE($3, status),
            disabled_reason = CASE WHEN $3::text = 'enabled' THEN NULL WHEN $4::text IS NOT NULL THEN $4 ELSE disabled_reason END,
            secret = COALESCE($5, secret),
            secret_rotated_at = COALESCE($6, secret_rotated_at),
            previous_secret = CASE WHEN $7::boolean THEN $8 ELSE previous_secret END,
            previous_secret_until = CASE WHEN $7::boolean THEN $9::timestamptz ELSE previous_secret_until END
          WHERE workspace_id = $1 AND id = $2 RETURNING ${ENDPOINT_COLS}`,
        [
          workspaceId,
          id,
          patch.status ?? null,
          patch.disabled_reason ?? null,
          patch.secret ?? null,
          patch.secret_rotated_at ?? null,
          // A rotation sets the previous secret, or clears it (no grace): both are written.
          'previous_secret' in patch,
          patch.previous_secret ?? null,
          patch.previous_secret_until ?? null,
        ],
      );
      return r ? toEndpoint(r) : null;
    },
    remove: async (workspaceId, id) => {
      const r = await db.rows(`DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 RETURNING id`, [workspaceId, id]);
      return r.length > 0;
    },
  };

  const webhooks: WebhookStore = {
    fanOut: async (now, limit) => {
      const [r] = await db.rows<{ events: number; jobs: number }>(
        `WITH ev AS (
           SELECT id, workspace_id, event, message_id, payload, created_at FROM outbox_events
            WHERE dispatched_at IS NULL ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED),
         mark AS (UPDATE outbox_events o SET dispatched_at = $1 FROM ev WHERE o.id = ev.id),
         ins AS (
           INSERT INTO webhook_jobs (${JOB_COLS})
           SELECT gen_random_uuid()::text, ev.workspace_id, ep.id, ev.id, ev.event, ev.message_id, ev.payload, 0, $1, $1
             FROM ev JOIN webhook_endpoints ep
               ON ep.workspace_id = ev.workspace_id AND ep.status = 'enabled' AND ep.created_at <= ev.created_at
              AND (ev.event = ANY (ep.events) OR (ev.event LIKE 'message.%' AND 'message.*' = ANY (ep.events)))
           RETURNING 1)
         SELECT (SELECT count(*) FROM ev)::int AS events, (SELECT count(*) FROM ins)::int AS jobs`,
        [now, limit],
        'webhook_fanout',
      );
      return r!;
    },
    // Leases on the database's clock, as for outbound jobs (pg-mail.ts).
    claim: async (owner, now, leaseMs, max) => {
      const rows = await db.rows<
        JobRow & {
          ep: EndpointRow & {
            created_at: string;
            failing_since: string | null;
            secret_rotated_at: string | null;
            previous_secret_until: string | null;
          };
        }
      >(
        `WITH c AS (${CLAIM}) SELECT c.*, to_jsonb(ep) AS ep FROM c JOIN webhook_endpoints ep ON ep.id = c.endpoint_id`,
        [owner, now, leaseMs, max],
        'webhook_claim',
      );
      return rows.map((r) => ({
        job: toJob(r),
        endpoint: toEndpoint({
          ...r.ep,
          created_at: new Date(r.ep.created_at),
          failing_since: r.ep.failing_since ? new Date(r.ep.failing_since) : null,
          secret_rotated_at: r.ep.secret_rotated_at ? new Date(r.ep.secret_rotated_at) : null,
          previous_secret_until: r.ep.previous_secret_until ? new Date(r.ep.previous_secret_until) : null,
        }),
      }));
    },
    record: async (records) => {
      if (!records.length) return;
      const attempts = records.map((r) => r.attempt);
      const jobs = records.flatMap((r) => (r.job ? [r.job] : []));
      const failing = failingAfter(records);
      const disabled = records.flatMap((r) => (r.disable ? [{ id: r.attempt.endpoint_id, reason: r.disable }] : []));
      // One statement (atomic without BEGIN/COMMIT, one round trip): the log rows, the jobs
      // finished or rescheduled, the endpoints' failure runs (written only when they change, so a
      // healthy endpoint's row is not touched per delivery) and the endpoints disabled.
      await db.rows(
        `WITH logged AS (
           INSERT INTO webhook_attempts (${ATTEMPT_COLS})
           SELECT ${ATTEMPT_COLS} FROM jsonb_to_recordset($1) AS a(id text, workspace_id text, endpoint_id text, job_id text, event_id text, event text,
                  message_id text, payload jsonb, kind text, attempt int, ok boolean, status_code int, error text, response text, duration_ms int, attempted_at timestamptz)),
         finished AS (DELETE FROM webhook_jobs WHERE id = ANY ($2::text[])),
         retried AS (
           UPDATE webhook_jobs j SET attempts = u.attempts, next_attempt_at = u.next_attempt_at, ${RELEASED}
             FROM jsonb_to_recordset($3) AS u(id text, attempts int, next_attempt_at timestamptz) WHERE j.id = u.id),
         failing AS (
           UPDATE webhook_endpoints e SET failing_since = CASE WHEN u.ok THEN NULL ELSE u.since END,
                  status = CASE WHEN d.reason IS NOT NULL THEN 'disabled' ELSE e.status END,
                  disabled_reason = CASE WHEN d.reason IS NOT NULL AND e.status = 'enabled' THEN d.reason ELSE e.disabled_reason END
             FROM jsonb_to_recordset($4) AS u(id text, ok boolean, since timestamptz)
             LEFT JOIN jsonb_to_recordset($5) AS d(id text, reason text) ON d.id = u.id
            WHERE e.id = u.id AND (d.reason IS NOT NULL OR (u.ok AND e.failing_since IS NOT NULL) OR (NOT u.ok AND e.failing_since IS NULL)))
         SELECT 1`,
        [
          JSON.stringify(attempts),
          jobs.filter((j) => j.state !== 'pending').map((j) => j.id),
          JSON.stringify(jobs.filter((j) => j.state === 'pending')),
          JSON.stringify(failing),
          JSON.stringify(disabled),
        ],
        'webhook_record',
      );
    },
    attempts: async (workspaceId, q) => {
      const where = ['workspace_id = $1'];
      const values: unknown[] = [workspaceId];
      if (q.endpoint_id) {
        values.push(q.endpoint_id);
        where.push(`endpoint_id = $${values.length}`);
      }
      if (q.message_id) {
        values.push(q.message_id);
        where.push(`message_id = $${values.length}`);
      }
      if (q.failed) where.push('NOT ok');
      if (q.since) {
        values.push(q.since);
        where.push(`attempted_at >= $${values.length}`);
      }
      values.push(q.limit);
      const rows = await db.rows<AttemptRow>(
        `SELECT ${ATTEMPT_COLS} FROM webhook_attempts WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${values.length}`,
        values,
      );
      return rows.map(toAttempt);
    },
    attemptIdsWithPrefix: async (workspaceId, prefix, limit) =>
      (
        await db.rows<{ id: string }>(`SELECT id FROM webhook_attempts WHERE workspace_id = $1 AND starts_with(id, $2) LIMIT $3`, [
          workspaceId,
          prefix,
          limit,
        ])
      ).map((r) => r.id),
    attempt: async (workspaceId, id) => {
      const [r] = await db.rows<AttemptRow>(`SELECT ${ATTEMPT_COLS} FROM webhook_attempts WHERE workspace_id = $1 AND id = $2`, [
        workspaceId,
        id,
      ]);
      return r ? toAttempt(r) : null;
    },
    depth: async () => Number((await db.rows<{ n: string }>(`SELECT count(*) AS n FROM webhook_jobs`, []))[0]!.n),
    purge: async (before) =>
      db.tx(async (c) => {
        await c.query(`DELETE FROM outbox_events WHERE dispatched_at IS NOT NULL AND created_at < $1`, [before]);
        return (await c.query(`DELETE FROM webhook_attempts WHERE attempted_at < $1`, [before])).rowCount ?? 0;
      }),
  };

  return { endpoints, webhooks };
}
