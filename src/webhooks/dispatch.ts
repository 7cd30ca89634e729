// src/webhooks/: webhook endpoints, signing, the target guard, dispatch and retries.
//
// From the outbox to the endpoints: fan-out (one job per event and subscribed endpoint), and one
// attempt at a job: signed, sent, and turned into what the store records (the log row, the job
// finished or rescheduled, the endpoint disabled on 410 or after days of failures).
import type { Deps, DepsOf } from '../deps.js';
import type { AttemptRecord, WebhookAttempt, WebhookEndpoint, WebhookJob } from '../model/webhook.js';
import { nextAttempt, DISABLE_AFTER_MS } from './retry.js';
import type { SendResult, WebhookSender } from './sender.js';
import { webhookBody, webhookHeaders } from './sign.js';

export interface Delivery {
  event: string;
  event_id: string;
  message_id: string;
  payload: Record<string, unknown>;
  kind: WebhookAttempt['kind'];
  job_id: string | null;
  attempt: number;
}

/** Signs and sends one event to one endpoint now; the log row of the attempt. */
export async function deliverOnce(
  deps: Pick<Deps, 'clock' | 'random'>,
  sender: WebhookSender,
  endpoint: WebhookEndpoint,
  d: Delivery,
): Promise<{ attempt: WebhookAttempt; result: SendResult }> {
  const now = deps.clock.now();
  const body = webhookBody(d.event, d.payload, now);
  // In a rotation's grace the previous secret signs too, in its own header.
  const previous =
    endpoint.previous_secret && endpoint.previous_secret_until && now.toISOString() < endpoint.previous_secret_until
      ? endpoint.previous_secret
      : null;
  const result = await sender.post(endpoint.url, webhookHeaders(d.event, endpoint.secret, body, previous), body);
  const attempt: WebhookAttempt = {
    id: deps.random.uuid(),
    workspace_id: endpoint.workspace_id,
    endpoint_id: endpoint.id,
    job_id: d.job_id,
    event_id: d.event_id,
    event: d.event,
    message_id: d.message_id,
    payload: d.payload,
    kind: d.kind,
    attempt: d.attempt,
    ok: result.ok,
    status_code: result.status_code,
    error: result.error,
    response: result.response,
    duration_ms: result.duration_ms,
    attempted_at: now.toISOString(),
  };
  return { attempt, result };
}

export function webhookDispatcher(deps: DepsOf<'webhooks'>, sender: WebhookSender) {
  const { store, clock, random, log } = deps;

  return {
    /** Moves every undispatched outbox event into jobs; returns the jobs made. */
    async fanOut(batch = 500): Promise<number> {
      let jobs = 0;
      for (;;) {
        const r = await store.webhooks.fanOut(clock.now().toISOString(), batch);
        jobs += r.jobs;
        if (r.events < batch) return jobs;
      }
    },

    /** One attempt at a claimed job, and what it changes. */
    async attempt(job: WebhookJob, endpoint: WebhookEndpoint): Promise<AttemptRecord> {
      const n = job.attempts + 1;
      const { attempt, result } = await deliverOnce(deps, sender, endpoint, {
        event: job.event,
        event_id: job.event_id,
        message_id: job.message_id,
        payload: job.payload,
        kind: 'event',
        job_id: job.id,
        attempt: n,
      });
      // The mail log's line per attempt (the host only: a URL may carry credentials). A customer's
      // endpoint failing is not a fault of ours: info, as every other attempt.
      const line = {
        endpoint: endpoint.id,
        host: new URL(endpoint.url).host,
        event: job.event,
        // svc's id, named as on every other line (`message_id` is the Message-ID header there).
        message: job.message_id,
        attempt: n,
        status: attempt.status_code ?? 'none',
        ms: attempt.duration_ms,
      };
      if (result.ok) {
        deps.events?.event('info', 'webhook', { ...line, outcome: 'delivered' });
        return { attempt, job: { id: job.id, state: 'delivered', attempts: n, next_attempt_at: job.next_attempt_at } };
      }
      deps.events?.event('info', 'webhook', { ...line, outcome: result.gone ? 'gone' : 'failed', error: attempt.error ?? '' });
      const now = clock.now();
      const next = result.gone ? null : nextAttempt(n, now, random);
      const rec: AttemptRecord = {
        attempt,
        job: next
          ? { id: job.id, state: 'pending', attempts: n, next_attempt_at: next.toISOString() }
          : { id: job.id, state: 'failed', attempts: n, next_attempt_at: job.next_attempt_at },
      };
      if (result.gone) {
        rec.disable = 'the endpoint answered 410 Gone';
      } else if (endpoint.failing_since && now.getTime() - Date.parse(endpoint.failing_since) >= DISABLE_AFTER_MS) {
        rec.disable = `every delivery failed since ${endpoint.failing_since}`;
      }
      // The host only: a URL may carry credentials, and logs are read by more people than secrets.
      if (rec.disable) log.warn(`webhooks: endpoint ${endpoint.id} (${new URL(endpoint.url).host}) disabled: ${rec.disable}`);
      return rec;
    },
  };
}

export type WebhookDispatcher = ReturnType<typeof webhookDispatcher>;
