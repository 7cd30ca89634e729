// The one store interface (DESIGN.md "Shape"): async, grouped by aggregate, with the operations the
// service needs. Both backends implement it and pass test/src/store/conformance.ts.
import type { Scope } from '../auth/scopes.js';
import type { Plan } from '../workspaces/plans.js';
import type { Purpose, RecordStatus } from '../domains/records.js';

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
}

export interface ApiKey {
  id: string;
  workspace_id: string;
  name: string;
  scopes: Scope[];
  /** The first characters of the key, enough for a person to recognise it; never the whole key. */
  prefix: string;
  /** hex SHA-256 of the full key. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface KeyOwner {
  key: ApiKey;
  workspace: Workspace;
}

/** The last check of one of a domain's five records. */
export interface RecordCheck {
  purpose: Purpose;
  status: RecordStatus;
  note: string | null;
  /** What to publish when it differs from the default value (a merged SPF record). */
  value: string | null;
  checked_at: string;
}

/** A change of a record's status between two checks, kept so that regressions stay visible. */
export interface RecordChange {
  at: string;
  purpose: Purpose;
  from: RecordStatus | null;
  to: RecordStatus;
  note: string | null;
}

export interface Domain {
  id: string;
  workspace_id: string;
  /** Lowercase ASCII (punycode). */
  domain: string;
  status: 'pending' | 'verified';
  /** Ownership token: svc-verify=<token> at _svc. */
  token: string;
  /** base64 SPKI DER of the DKIM public key (the p= value). */
  dkim_public_key: string;
  /** PKCS#8 PEM; never leaves the store except to sign. */
  dkim_private_key: string;
  /** Verified before the five-record scheme (kept working; signed with its own key once DKIM checks out). */
  legacy: boolean;
  /** Whether the last check found our DKIM key published. */
  dkim_verified: boolean;
  /** null before the first check. */
  records: RecordCheck[] | null;
  history: RecordChange[];
  created_at: string;
  verified_at: string | null;
  checked_at: string | null;
}

export interface DomainCheck {
  records: RecordCheck[];
  changes: RecordChange[];
  dkim_verified: boolean;
  checked_at: string;
  /** All five passed: mark the domain verified, unless another workspace has it verified. */
  verify: boolean;
}

/** How many of a kind a workspace may have; null for unlimited. */
export type CountLimit = number | null;

export interface DomainStore {
  /** Throws conflict when the workspace has this domain, QuotaExceeded when at `limit`. */
  create(d: Domain, limit: CountLimit): Promise<Domain>;
  listByWorkspace(workspaceId: string): Promise<Domain[]>;
  /** Every domain of every workspace (the daemon's periodic re-check). */
  listAll(): Promise<Domain[]>;
  get(workspaceId: string, domain: string): Promise<Domain | null>;
  byId(id: string): Promise<Domain | null>;
  /** The workspace that has this domain verified, if any. */
  verifiedBy(domain: string): Promise<string | null>;
  /**
   * Stores a check: the records, appended history (the newest HISTORY_LIMIT kept), and with
   * `verify` the verified status. Throws conflict if another workspace verified the domain first.
   */
  saveCheck(id: string, check: DomainCheck): Promise<Domain>;
  /** Removes the domain and its addresses. */
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export const HISTORY_LIMIT = 100;

export interface Address {
  id: string;
  workspace_id: string;
  domain_id: string;
  /** local@domain, lowercase. */
  address: string;
  status: 'active' | 'disabled';
  created_at: string;
}

export interface AddressStore {
  /** Throws conflict when registered already, not_found when the domain is gone, QuotaExceeded at `limit`. */
  create(a: Address, limit: CountLimit): Promise<Address>;
  listByWorkspace(workspaceId: string): Promise<Address[]>;
  get(workspaceId: string, address: string): Promise<Address | null>;
  setStatus(workspaceId: string, id: string, status: Address['status']): Promise<Address | null>;
  remove(workspaceId: string, id: string): Promise<boolean>;
}

export type MessageStatus = 'queued' | 'sent' | 'bounced';
export type MessageSource = 'api' | 'relay' | 'broadcast' | 'sequence';
export type RecipientKind = 'to' | 'cc' | 'bcc';

/** One record per recipient (spec.md "Message"). */
export interface Message {
  id: string;
  workspace_id: string;
  /** The send it belongs to: its content, shared by all its recipients. */
  content_id: string;
  source: MessageSource;
  /** Bare sender address. */
  from: string;
  to: string;
  kind: RecipientKind;
  subject: string;
  status: MessageStatus;
  open_count: number;
  click_count: number;
  reply_count: number;
  first_open_after_seconds: number | null;
  /** Message-ID header without angle brackets. */
  message_id: string;
  error: string | null;
  /** What the service changed or dropped on the way in (the relay drops attachments). */
  notes: string[];
  created_at: string;
  sent_at: string | null;
  opened_at: string | null;
  clicked_at: string | null;
  replied_at: string | null;
  bounced_at: string | null;
  /**
   * Hand-off attempts so far, the last temporary reply or failure, and when the next attempt is
   * due (null once sent or bounced). Absent on records written before they were kept: 0, null, null.
   */
  attempts?: number;
  last_error?: string | null;
  next_attempt_at?: string | null;
}

/** What one send composes from, stored once for all its recipients. */
export interface SendContent {
  id: string;
  workspace_id: string;
  source: MessageSource;
  from: string;
  from_name: string | null;
  domain_id: string;
  /** Recipients shown in To: and Cc: (bcc never appear). */
  to: Array<{ name: string | null; address: string }>;
  cc: Array<{ name: string | null; address: string }>;
  subject: string;
  html: string | null;
  text: string | null;
  message_id: string;
  /** Notes for the log, e.g. "2 attachments dropped" (relay). */
  notes: string[];
  created_at: string;
  /** Files and inline images of relayed mail, composed into every copy; absent when none. */
  attachments?: Attachment[];
}

/** One attachment or inline part, its bytes in base64. */
export interface Attachment {
  filename: string | null;
  content_type: string;
  /** inline parts are referenced from the HTML by `cid:` */
  disposition: 'attachment' | 'inline';
  cid: string | null;
  content: string;
}

/**
 * One hand-off: the recipients of one send on one domain, delivered in one SMTP transaction.
 * Claimed with a lease, so a crashed worker's jobs are taken by another once the lease ends.
 */
export interface OutboundJob {
  id: string;
  workspace_id: string;
  content_id: string;
  /** Recipient domain (ASCII). */
  domain: string;
  message_ids: string[];
  /** Token of the open-tracking pixel in this copy. */
  open_token: string;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  last_error: string | null;
}

export type WebhookEvent = 'message.sent' | 'message.bounced' | 'message.opened' | 'message.clicked';

/** A state change that must reach webhooks, written in the same store call as the change. */
export interface OutboxEvent {
  id: string;
  workspace_id: string;
  event: WebhookEvent;
  message_id: string;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface Suppression {
  workspace_id: string;
  /** Lowercase. */
  address: string;
  reason: 'bounce' | 'unsubscribe' | 'manual';
  detail: string | null;
  created_at: string;
  /** A bounce's evidence: the message that bounced and the kind of refusal (bad-mailbox, ...). */
  message_id?: string;
  class?: string;
}

/** A send-quota window a send is counted in (spec.md "Plan quotas": per day and per month). */
export interface QuotaWindow {
  /** `day:YYYY-MM-DD` or `month:YYYY-MM`. */
  key: string;
  window: 'day' | 'month';
  /** null: counted, never refused. */
  limit: number | null;
  resets_at: string;
}

/** What a completed idempotent request answers when it is replayed. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface AcceptBatch {
  content: SendContent;
  messages: Message[];
  jobs: OutboundJob[];
  events: OutboxEvent[];
  /** Counted in these windows, or refused with quota_exceeded when one would go over. */
  debit?: { n: number; windows: QuotaWindow[] };
  /** Completes this claim, with the response a replay returns (and the request's fingerprint). */
  idempotency?: { key: string; token: string; response: StoredResponse; fingerprint?: string | null };
  /**
   * Lowercase addresses that must not be on the workspace's suppression list: when one is, nothing
   * is stored and the call fails with SvcError conflict, `details.suppressed` naming them (checked
   * in the same call, so a send needs no separate look-up in the usual case).
   */
  unsuppressed?: string[];
}

/** `fingerprint`: that of the request holding the key, when it gave one. */
export type IdempotencyClaim = { state: 'claimed' } | { state: 'running'; fingerprint?: string } | { state: 'completed'; response: StoredResponse; fingerprint?: string };

export interface IdempotencyStore {
  /**
   * Claims `key` for this request (`token`), unless a claim younger than `runningTtlMs` is running or
   * a completed one younger than `ttlMs` exists; older ones are taken over. `fingerprint` (a hash
   * of the request) is kept with the claim, so a reuse of the key for another request is told apart.
   */
  claim(workspaceId: string, key: string, token: string, now: string, ttlMs: number, runningTtlMs: number, fingerprint?: string | null): Promise<IdempotencyClaim>;
  /** Gives a running claim back (the request failed before queueing). */
  release(workspaceId: string, key: string, token: string): Promise<void>;
  /**
   * A running request's heartbeat: its claim counts as alive for another runningTtlMs (measured
   * with the store's own clock where processes share it, as leases are).
   */
  renew(workspaceId: string, key: string, token: string, now: string): Promise<void>;
}

export interface RateLimitStore {
  /**
   * Counts up to `want` requests in the key's sliding window, as many as fit under `limit`;
   * `granted` 0 means refused, with the time until a slot frees.
   */
  hit(keyId: string, now: string, windowMs: number, limit: number, want: number): Promise<{ granted: number; retryAfterMs: number }>;
}

export interface UsageStore {
  /** Sends counted in each of these windows. */
  get(workspaceId: string, windowKeys: string[]): Promise<Record<string, number>>;
}

export type MessagePatch = Pick<Message, 'id'> & Partial<Pick<Message, 'status' | 'error' | 'sent_at' | 'bounced_at' | 'attempts' | 'last_error' | 'next_attempt_at'>>;

/** The outcome of one attempt at a job, stored in one call. */
export interface JobOutcome {
  updates: MessagePatch[];
  events: OutboxEvent[];
  suppressions: Suppression[];
  /** Recipients to try again, and when; absent when the job is finished. */
  retry?: { message_ids: string[]; next_attempt_at: string; last_error: string };
}

export interface MessageQuery {
  status?: MessageStatus;
  /** Case-insensitive substring of the recipient. */
  recipient?: string;
  limit: number;
  offset: number;
}

export interface MessageStore {
  /** The records of a send, its content, its jobs and events: all or nothing, durable on return. */
  accept(batch: AcceptBatch): Promise<void>;
  get(workspaceId: string, id: string): Promise<Message | null>;
  /** Newest first. */
  list(workspaceId: string, q: MessageQuery): Promise<{ data: Message[]; total: number }>;
  byIds(ids: string[]): Promise<Message[]>;
  content(id: string): Promise<SendContent | null>;
  /** Removes messages (and their contents and finished jobs) created before `before`; returns how many. */
  purge(before: string): Promise<number>;
}

export interface QueueStore {
  /**
   * Up to `max` jobs due at `now`, leased to `owner` for leaseMs. A job never tried (attempts 0)
   * is due at once, whatever its next_attempt_at and the caller's clock.
   * Leases are measured with the store's own clock where several processes share it (Postgres:
   * the database's now()), so daemons whose clocks disagree never take each other's live jobs.
   */
  claim(owner: string, now: string, leaseMs: number, max: number): Promise<OutboundJob[]>;
  /** Extends the leases `owner` still holds on these jobs by leaseMs from now (a heartbeat). */
  renew(owner: string, jobIds: string[], now: string, leaseMs: number): Promise<void>;
  /** Records an attempt's outcome and finishes or reschedules the job, in one call. */
  complete(jobId: string, outcome: JobOutcome): Promise<void>;
  /** Jobs not finished (queued or in flight). */
  depth(): Promise<number>;
}

export interface OutboxStore {
  /** Events not yet dispatched to webhook endpoints, oldest first. */
  pending(limit: number): Promise<OutboxEvent[]>;
}

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
  failed?: boolean;
  /** Attempts at or after this time. */
  since?: string;
  limit: number;
}

export interface WebhookEndpointStore {
  create(e: WebhookEndpoint): Promise<WebhookEndpoint>;
  listByWorkspace(workspaceId: string): Promise<WebhookEndpoint[]>;
  get(workspaceId: string, id: string): Promise<WebhookEndpoint | null>;
  update(workspaceId: string, id: string, patch: Partial<Pick<WebhookEndpoint, 'status' | 'disabled_reason' | 'secret' | 'secret_rotated_at'>>): Promise<WebhookEndpoint | null>;
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
  /** Jobs not finished. */
  depth(): Promise<number>;
  /** Removes log rows and finished jobs older than `before`; returns the log rows removed. */
  purge(before: string): Promise<number>;
}

export interface SuppressionStore {
  list(workspaceId: string): Promise<Suppression[]>;
  /** Adds or keeps the first entry; returns the entry in force. */
  add(s: Suppression): Promise<Suppression>;
  remove(workspaceId: string, address: string): Promise<boolean>;
  /** Which of these (lowercase) addresses are suppressed. */
  find(workspaceId: string, addresses: string[]): Promise<Suppression[]>;
}

/** The STARTTLS certificate made once when the operator gives none (relay and MX). */
export interface TlsIdentity {
  cert: string;
  key: string;
  created_at: string;
}

export interface TlsStore {
  get(): Promise<TlsIdentity | null>;
  /** Keeps the first identity saved; returns the one in force (two daemons starting at once agree). */
  saveIfAbsent(t: TlsIdentity): Promise<TlsIdentity>;
}

export interface WorkspaceStore {
  /** Throws SvcError conflict when the name is taken. */
  create(ws: Workspace): Promise<Workspace>;
  list(): Promise<Workspace[]>;
  getByName(name: string): Promise<Workspace | null>;
  setPlan(id: string, plan: Plan): Promise<Workspace | null>;
}

export interface KeyStore {
  create(key: ApiKey): Promise<ApiKey>;
  listByWorkspace(workspaceId: string): Promise<ApiKey[]>;
  /** The key with this hash and its workspace, revoked or not. */
  findByHash(hash: string): Promise<KeyOwner | null>;
  /** Sets revoked_at once; revoking again keeps the first time. Null when no such key in the workspace. */
  revoke(workspaceId: string, id: string, at: string): Promise<ApiKey | null>;
}

export interface StoreGroups {
  workspaces: WorkspaceStore;
  keys: KeyStore;
  domains: DomainStore;
  addresses: AddressStore;
  messages: MessageStore;
  queue: QueueStore;
  outbox: OutboxStore;
  endpoints: WebhookEndpointStore;
  webhooks: WebhookStore;
  suppressions: SuppressionStore;
  tls: TlsStore;
  idempotency: IdempotencyStore;
  rateLimit: RateLimitStore;
  usage: UsageStore;
}

export interface Store extends StoreGroups {
  /** A short description for logs, never with a password. */
  readonly describe: string;
  /** Resolves when the store answers; throws SvcError store_unavailable otherwise. */
  health(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every operation of every group, so that the daemon's admin socket can forward exactly these and
 * nothing else. The mapped type makes the compiler insist that a new operation is listed here.
 */
export const storeOperations: { [G in keyof StoreGroups]: Record<keyof StoreGroups[G], true> } = {
  workspaces: { create: true, list: true, getByName: true, setPlan: true },
  keys: { create: true, listByWorkspace: true, findByHash: true, revoke: true },
  domains: { create: true, listByWorkspace: true, listAll: true, get: true, byId: true, verifiedBy: true, saveCheck: true, remove: true },
  addresses: { create: true, listByWorkspace: true, get: true, setStatus: true, remove: true },
  messages: { accept: true, get: true, list: true, byIds: true, content: true, purge: true },
  queue: { claim: true, renew: true, complete: true, depth: true },
  outbox: { pending: true },
  endpoints: { create: true, listByWorkspace: true, get: true, update: true, remove: true },
  webhooks: { fanOut: true, claim: true, record: true, attempts: true, attempt: true, depth: true, purge: true },
  suppressions: { list: true, add: true, remove: true, find: true },
  tls: { get: true, saveIfAbsent: true },
  idempotency: { claim: true, release: true, renew: true },
  rateLimit: { hit: true },
  usage: { get: true },
};
