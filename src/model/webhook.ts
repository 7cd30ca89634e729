// Webhook endpoints, the jobs that carry one event to one endpoint, and the delivery log.

/** A customer's webhook target (spec.md "Events"). */
export interface WebhookEndpoint {
  id: string;
  workspace_id: string;
  url: string;
  /** Event names, or `message.*` for every message event. */
  events: string[];
  /** `whsec_...`: kept as is, since every delivery is signed with it. */
  secret: string;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  /** When its current run of failed attempts began; null after a success. */
  failing_since: string | null;
  created_at: string;
  secret_rotated_at: string | null;
  /**
   * The secret before the last rotation, still signing (X-Svc-Signature-Previous) until
   * previous_secret_until, so that a receiver can move to the new one without losing a delivery.
   */
  previous_secret: string | null;
  previous_secret_until: string | null;
}

/** One event on its way to one endpoint: retried until delivered or out of attempts. */
export interface WebhookJob {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  /** The outbox event (the same for every endpoint it went to). */
  event_id: string;
  event: string;
  message_id: string;
  /** The body fields but timestamp, which is set at each sending. */
  payload: Record<string, unknown>;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: string;
  created_at: string;
}

/** One row of the delivery log: one attempt to deliver one event to one endpoint. */
export interface WebhookAttempt {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  /** The job it was made for; null for test events and replays. */
  job_id: string | null;
  event_id: string;
  event: string;
  message_id: string;
  payload: Record<string, unknown>;
  kind: 'event' | 'replay' | 'test';
  /** 1 for the first attempt of a job. */
  attempt: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  /** The first 2 KB of the response body. */
  response: string;
  duration_ms: number;
  attempted_at: string;
}

/** What one attempt changes, stored together: the log row, the job, the endpoint. */
export interface AttemptRecord {
  attempt: WebhookAttempt;
  job?: { id: string; state: WebhookJob['state']; attempts: number; next_attempt_at: string };
  /** Disables the endpoint with this reason (a 410, or days of failures). */
  disable?: string;
}

export interface AttemptQuery {
  endpoint_id?: string;
  /** Attempts of this message record's events. */
  message_id?: string;
  failed?: boolean;
  /** Attempts at or after this time. */
  since?: string;
  limit: number;
}
