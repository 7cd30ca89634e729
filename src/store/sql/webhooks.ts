// Webhook jobs and the delivery log on either SQL backend. The endpoints are the control plane's
// (the Postgres table, or svc.json in the embedded store): this reads and updates them through the
// EndpointSource its backend gives. Which endpoints want an event is the model's rule
// (endpointWants); a job is leased on the database's clock, as outbound jobs are.
import { randomUUID } from 'node:crypto';
import type { Selectable } from '#kysely';
import { endpointWants } from '../../model/event.js';
import type { AttemptRecord, WebhookAttempt, WebhookEndpoint, WebhookJob } from '../../model/webhook.js';
import type { WebhookStore } from '../port/webhooks.js';
import { bool, flag, fromJson, iso, type Q, type SqlDb, idsStartingWith } from './db.js';
import type { WebhookAttemptsTable, WebhookJobsTable } from './tables.js';

/** Where an endpoint's run of failures stands after some attempts: null after a success, else when the trailing failures began. */
export interface FailureRun {
  endpoint_id: string;
  ok: boolean;
  since: string;
}

/** The endpoints as the webhook jobs need them, from wherever the backend keeps them. */
export interface EndpointSource {
  /** The enabled endpoints of these workspaces (null: of every workspace). */
  enabled(q: Q, workspaceIds: string[] | null): Promise<WebhookEndpoint[]>;
  /**
   * What logged attempts change on their endpoints: the failure runs (written only when they
   * change) and the endpoints disabled; `q` is the attempts' transaction.
   */
  afterAttempts(q: Q, runs: FailureRun[], disabled: Array<{ endpoint_id: string; reason: string }>): Promise<void>;
}

/** Per endpoint, where its run of failures stands after these attempts (in order). */
export function failureRuns(records: AttemptRecord[]): FailureRun[] {
  const by = new Map<string, { ok: boolean; since: string }>();
  for (const { attempt: a } of records) {
    const cur = by.get(a.endpoint_id);
    by.set(a.endpoint_id, a.ok ? { ok: true, since: a.attempted_at } : { ok: false, since: cur && !cur.ok ? cur.since : a.attempted_at });
  }
  return [...by].map(([endpoint_id, v]) => ({ endpoint_id, ...v }));
}

const JOB = [
  'id',
  'workspace_id',
  'endpoint_id',
  'event_id',
  'event',
  'message_id',
  'payload',
  'attempts',
  'next_attempt_at',
  'created_at',
] as const;

const toJob = (r: Pick<Selectable<WebhookJobsTable>, (typeof JOB)[number]>): WebhookJob => ({
  id: r.id,
  workspace_id: r.workspace_id,
  endpoint_id: r.endpoint_id,
  event_id: r.event_id,
  event: r.event,
  message_id: r.message_id,
  payload: fromJson<Record<string, unknown>>(r.payload),
  state: 'pending',
  attempts: r.attempts,
  next_attempt_at: iso(r.next_attempt_at),
  created_at: iso(r.created_at),
});

const toAttempt = ({ seq: _seq, ...r }: Selectable<WebhookAttemptsTable>): WebhookAttempt => ({
  ...r,
  kind: r.kind as WebhookAttempt['kind'],
  payload: fromJson<Record<string, unknown>>(r.payload),
  ok: bool(r.ok),
  attempted_at: iso(r.attempted_at),
});

/** An endpoint's pending jobs go with it (its delivery log stays). */
export async function dropEndpointJobs(q: Q, endpointId: string): Promise<void> {
  await q.deleteFrom('webhook_jobs').where('endpoint_id', '=', endpointId).execute();
}

export function sqlWebhooks(db: SqlDb, endpoints: EndpointSource): WebhookStore {
  return {
    // The undispatched events are taken and marked in one transaction with their jobs.
    fanOut: (now, limit) =>
      db.tx(async (q) => {
        let taken = q
          .selectFrom('outbox_events')
          .select(['id', 'workspace_id', 'event', 'message_id', 'payload', 'created_at'])
          .where('dispatched_at', 'is', null)
          .orderBy('seq')
          .limit(limit);
        if (db.locksRows) taken = taken.forUpdate().skipLocked();
        const events = await taken.execute();
        if (!events.length) return { events: 0, jobs: 0 };
        await q
          .updateTable('outbox_events')
          .set({ dispatched_at: now })
          .where(
            'id',
            'in',
            events.map((e) => e.id),
          )
          .execute();
        const eps = await endpoints.enabled(q, [...new Set(events.map((e) => e.workspace_id))]);
        const jobs = events.flatMap((ev) =>
          eps
            .filter(
              (ep) => ep.workspace_id === ev.workspace_id && ep.created_at <= iso(ev.created_at) && endpointWants(ep.events, ev.event),
            )
            .map((ep) => ({
              id: randomUUID(),
              workspace_id: ev.workspace_id,
              endpoint_id: ep.id,
              event_id: ev.id,
              event: ev.event,
              message_id: ev.message_id,
              payload: typeof ev.payload === 'string' ? ev.payload : JSON.stringify(ev.payload),
              attempts: 0,
              next_attempt_at: now,
              created_at: now,
            })),
        );
        for (let i = 0; i < jobs.length; i += 500)
          await q
            .insertInto('webhook_jobs')
            .values(jobs.slice(i, i + 500))
            .execute();
        return { events: events.length, jobs: jobs.length };
      }),
    // Due jobs of enabled endpoints: a job never tried by the database's clock, a retry by the caller's.
    claim: (owner, now, leaseMs, max) =>
      db.tx(async (q) => {
        const enabledOf = new Map((await endpoints.enabled(q, null)).map((ep) => [ep.id, ep]));
        if (!enabledOf.size) return [];
        let due = q
          .selectFrom('webhook_jobs')
          .select(['id', 'endpoint_id'])
          .where('endpoint_id', 'in', [...enabledOf.keys()])
          .where((e) => e.or([e('next_attempt_at', '<=', now), e.and([e('attempts', '=', 0), e('next_attempt_at', '<=', db.now())])]))
          .where((e) => e.or([e('lease_until', 'is', null), e('lease_until', '<=', db.now())]))
          .orderBy('next_attempt_at')
          .limit(max);
        if (db.locksRows) due = due.forUpdate().skipLocked();
        const ids = (await due.execute()).map((r) => r.id);
        if (!ids.length) return [];
        const leased = await q
          .updateTable('webhook_jobs')
          .set({ lease_owner: owner, lease_until: db.later(leaseMs) })
          .where('id', 'in', ids)
          .returning(JOB)
          .execute();
        const byId = new Map(leased.map((r) => [r.id, r]));
        return ids.flatMap((id) => {
          const r = byId.get(id);
          return r ? [{ job: toJob(r), endpoint: enabledOf.get(r.endpoint_id)! }] : [];
        });
      }),
    // The log rows, the jobs finished or rescheduled, and what they change on the endpoints.
    record: (records) =>
      records.length
        ? db.tx(async (q) => {
            await q
              .insertInto('webhook_attempts')
              .values(records.map(({ attempt: a }) => ({ ...a, payload: JSON.stringify(a.payload), ok: flag(a.ok) })))
              .execute();
            const jobs = records.flatMap((r) => (r.job ? [r.job] : []));
            const finished = jobs.filter((j) => j.state !== 'pending').map((j) => j.id);
            if (finished.length) await q.deleteFrom('webhook_jobs').where('id', 'in', finished).execute();
            for (const j of jobs.filter((x) => x.state === 'pending'))
              await q
                .updateTable('webhook_jobs')
                .set({ attempts: j.attempts, next_attempt_at: j.next_attempt_at, lease_owner: null, lease_until: null })
                .where('id', '=', j.id)
                .execute();
            await endpoints.afterAttempts(
              q,
              failureRuns(records),
              records.flatMap((r) => (r.disable ? [{ endpoint_id: r.attempt.endpoint_id, reason: r.disable }] : [])),
            );
          })
        : Promise.resolve(),
    attempts: async (workspaceId, f) =>
      (
        await db.run((q) => {
          let w = q.selectFrom('webhook_attempts').selectAll().where('workspace_id', '=', workspaceId);
          if (f.endpoint_id) w = w.where('endpoint_id', '=', f.endpoint_id);
          if (f.message_id) w = w.where('message_id', '=', f.message_id);
          if (f.failed) w = w.where('ok', '=', 0);
          if (f.since) w = w.where('attempted_at', '>=', f.since);
          return w.orderBy('seq', 'desc').limit(f.limit).execute();
        })
      ).map(toAttempt),
    attempt: async (workspaceId, id) => {
      const r = await db.run((q) =>
        q.selectFrom('webhook_attempts').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst(),
      );
      return r ? toAttempt(r) : null;
    },
    attemptIdsWithPrefix: (workspaceId, prefix, limit) => idsStartingWith(db, 'webhook_attempts', workspaceId, prefix, limit),
    depth: async () =>
      Number(
        (
          await db.run((q) =>
            q
              .selectFrom('webhook_jobs')
              .select((e) => e.fn.countAll().as('n'))
              .executeTakeFirstOrThrow(),
          )
        ).n,
      ),
    purge: (before) =>
      db.tx(async (q) => {
        await q.deleteFrom('outbox_events').where('dispatched_at', 'is not', null).where('created_at', '<', before).execute();
        return Number((await q.deleteFrom('webhook_attempts').where('attempted_at', '<', before).executeTakeFirst()).numDeletedRows);
      }),
  };
}
