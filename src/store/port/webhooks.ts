// Webhook endpoints, their jobs and the delivery log.
import type { AttemptQuery, AttemptRecord, WebhookAttempt, WebhookEndpoint, WebhookJob } from '../../model/webhook.js';

export interface WebhookEndpointStore {
  create(e: WebhookEndpoint): Promise<WebhookEndpoint>;
  listByWorkspace(workspaceId: string): Promise<WebhookEndpoint[]>;
  get(workspaceId: string, id: string): Promise<WebhookEndpoint | null>;
  update(
    workspaceId: string,
    id: string,
    patch: Partial<
      Pick<WebhookEndpoint, 'status' | 'disabled_reason' | 'secret' | 'secret_rotated_at' | 'previous_secret' | 'previous_secret_until'>
    >,
  ): Promise<WebhookEndpoint | null>;
  /** Removes the endpoint and its pending jobs; its delivery log stays. */
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export interface WebhookStore {
  /**
   * Takes up to `limit` outbox events not yet dispatched, makes a job for every enabled endpoint
   * subscribed to each (that existed when the event happened), and marks them dispatched, in one
   * call; returns how many events were taken and jobs made.
   */
  fanOut(now: string, limit: number): Promise<{ events: number; jobs: number }>;
  /** Up to `max` due jobs of enabled endpoints, leased to `owner`, each with its endpoint. */
  claim(owner: string, now: string, leaseMs: number, max: number): Promise<Array<{ job: WebhookJob; endpoint: WebhookEndpoint }>>;
  /** Logs attempts and applies what they change, in one call. */
  record(records: AttemptRecord[]): Promise<void>;
  /** The delivery log, newest first. */
  attempts(workspaceId: string, q: AttemptQuery): Promise<WebhookAttempt[]>;
  attempt(workspaceId: string, id: string): Promise<WebhookAttempt | null>;
  /** Ids of the workspace's delivery attempts that start with `prefix` (at most `limit`). */
  attemptIdsWithPrefix(workspaceId: string, prefix: string, limit: number): Promise<string[]>;
  /** Jobs not finished. */
  depth(): Promise<number>;
  /** Removes log rows and finished jobs older than `before`; returns the log rows removed. */
  purge(before: string): Promise<number>;
}
