// The tables the SQL backends share, as Kysely sees them. A timestamp column is an ISO string on
// the way in and a Date (Postgres) or that string (SQLite) on the way out; a JSON column is text
// in and a value (Postgres) or text (SQLite) out; a boolean is 0 or 1 in and a boolean (Postgres)
// or a number (SQLite) out: db.ts reads each. A sequence column (seq) is given by the database.
// Long because it is every shared table, one interface each, next to each other.
import type { ColumnType, Generated } from '#kysely';

type At = ColumnType<Date | string, string, string>;
type AtOrNull = ColumnType<Date | string | null, string | null, string | null>;
type Json = ColumnType<unknown, string, string>;
type JsonOrNull = ColumnType<unknown, string | null, string | null>;
type Flag = ColumnType<boolean | number, number, number>;
type FlagOrNull = ColumnType<boolean | number | null, number | null, number | null>;
/** Postgres's bigint comes back as a string. */
type Big = ColumnType<string | number, number, number>;
type Seq = Generated<string | number>;

export interface SuppressionsTable {
  workspace_id: string;
  address: string;
  reason: string;
  detail: string | null;
  created_at: At;
  message_id: string | null;
  class: string | null;
}

export interface DaemonStatusTable {
  id: string;
  report: Json;
  updated_at: At;
}

export interface RateBucketsTable {
  key_id: string;
  /** The epoch second. */
  sec: Big;
  n: number;
}

export interface SendContentsTable {
  id: string;
  workspace_id: string;
  source: string;
  from_addr: string;
  from_name: string | null;
  domain_id: string;
  to_list: Json;
  cc_list: Json;
  subject: string;
  html: string | null;
  text_body: string | null;
  message_id: string;
  notes: Json;
  created_at: At;
  attachments: JsonOrNull;
  thread_id: string | null;
  in_reply_to: string | null;
  refs: JsonOrNull;
  preheader: string | null;
  raw: Buffer | null;
  campaign_id: string | null;
  in_sent: Flag;
}

export interface MessagesTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  content_id: string;
  source: string;
  from_addr: string;
  to_addr: string;
  kind: string;
  subject: string;
  status: string;
  open_count: number;
  click_count: number;
  reply_count: number;
  first_open_after_seconds: number | null;
  message_id: string;
  error: string | null;
  created_at: At;
  sent_at: AtOrNull;
  opened_at: AtOrNull;
  clicked_at: AtOrNull;
  replied_at: AtOrNull;
  bounced_at: AtOrNull;
  notes: Json;
  attempts: number;
  last_error: string | null;
  next_attempt_at: AtOrNull;
  token: string;
  via: JsonOrNull;
  campaign_id: string | null;
  subscriber: JsonOrNull;
  /** The subscriber's id, made by the database from `subscriber`. */
  subscriber_id: ColumnType<string | null, never, never>;
}

export interface OutboundJobsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  content_id: string;
  domain: string;
  message_ids: Json;
  attempts: number;
  next_attempt_at: At;
  created_at: At;
  last_error: string | null;
  lease_owner: string | null;
  lease_until: AtOrNull;
  priority: number;
  held: Flag;
}

export interface OutboxEventsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  event: string;
  message_id: string;
  payload: Json;
  created_at: At;
  dispatched_at: AtOrNull;
}

/** Rows counted by the database (SQLite only: schema/0002_counts.sql; SqlDb.keepsCounts). */
export interface MessageCountsTable {
  workspace_id: string;
  status: string;
  n: number;
}

export interface SubscriberCountsTable {
  list_id: string;
  status: string;
  n: number;
}

export interface SendUsageTable {
  workspace_id: string;
  window_key: string;
  used: number;
}

export interface DeliveryAttemptsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  message_id: string;
  attempt: number;
  at: At;
  duration_ms: number;
  host: string | null;
  ip: string | null;
  tls: FlagOrNull;
  outcome: string;
  class: string | null;
  reply: string;
  dkim: JsonOrNull;
}

export interface MessageEventsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  message_id: string;
  kind: string;
  prefetch: Flag;
  source: string;
  reason: string;
  url: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: At;
}

export interface IdempotencyKeysTable {
  workspace_id: string;
  key: string;
  state: 'running' | 'completed';
  token: string;
  response: JsonOrNull;
  created_at: At;
  fingerprint: string | null;
  heartbeat_at: AtOrNull;
}

export interface CampaignsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  list_id: string;
  from_addr: string;
  from_name: string;
  subject: string;
  html: string;
  text_body: string;
  preheader: string;
  status: string;
  recipients: number;
  cursor: Big;
  copies: number;
  unsubscribed: number;
  created_at: At;
  updated_at: At;
  fanned_out_at: AtOrNull;
}

export interface EnrolmentsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  sequence_id: string;
  list_id: string;
  subscriber_id: string;
  status: string;
  position: number;
  last_at: At;
  due_at: AtOrNull;
  reason: string | null;
  created_at: At;
  lease_owner: string | null;
  lease_until: AtOrNull;
}

export interface InboxItemsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  kind: string;
  thread_id: string;
  from_addr: string;
  from_name: string | null;
  to_list: Json;
  cc_list: Json;
  subject: string;
  message_id: string | null;
  in_reply_to: string | null;
  refs: Json;
  headers: string;
  text_body: string | null;
  html: string | null;
  envelope: JsonOrNull;
  raw: string | null;
  size: Big;
  message_ref: string | null;
  note: string | null;
  created_at: At;
  auth: JsonOrNull;
}

export interface InboxThreadStateTable {
  workspace_id: string;
  thread_id: string;
  read_at: AtOrNull;
  archived_at: AtOrNull;
}

export interface InboxUsageTable {
  workspace_id: string;
  bytes: Big;
}

export interface WebhookJobsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  message_id: string;
  payload: Json;
  attempts: number;
  next_attempt_at: At;
  created_at: At;
  lease_owner: string | null;
  lease_until: AtOrNull;
}

export interface WebhookAttemptsTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  endpoint_id: string;
  job_id: string | null;
  event_id: string;
  event: string;
  message_id: string;
  payload: Json;
  kind: string;
  attempt: number;
  ok: Flag;
  status_code: number | null;
  error: string | null;
  response: string;
  duration_ms: number;
  attempted_at: At;
}

/** The embedded store's: when each endpoint's run of failures began (its endpoints are in svc.json). */
export interface EndpointFailuresTable {
  endpoint_id: string;
  since: string;
}

export interface SubscribersTable {
  seq: Seq;
  id: string;
  list_id: string;
  workspace_id: string;
  email: string;
  name: string;
  status: string;
  unsubscribe_token: string;
  tags: Json;
  created_at: At;
  updated_at: At;
  confirm_sent_at: AtOrNull;
}

export interface SequencesTable {
  seq: Seq;
  id: string;
  workspace_id: string;
  list_id: string;
  name: string;
  trigger: string;
  active: Flag;
  created_at: At;
  updated_at: At;
}

export interface SequenceStepsTable {
  id: string;
  sequence_id: string;
  workspace_id: string;
  position: number;
  delay_hours: number;
  subject: string;
  body_html: string;
  body_text: string;
  created_at: At;
}

export interface Tables {
  sequences: SequencesTable;
  sequence_steps: SequenceStepsTable;
  subscribers: SubscribersTable;
  endpoint_failures: EndpointFailuresTable;
  webhook_jobs: WebhookJobsTable;
  webhook_attempts: WebhookAttemptsTable;
  inbox_items: InboxItemsTable;
  inbox_thread_state: InboxThreadStateTable;
  inbox_usage: InboxUsageTable;
  campaigns: CampaignsTable;
  enrolments: EnrolmentsTable;
  suppressions: SuppressionsTable;
  daemon_status: DaemonStatusTable;
  rate_buckets: RateBucketsTable;
  send_contents: SendContentsTable;
  messages: MessagesTable;
  message_counts: MessageCountsTable;
  subscriber_counts: SubscriberCountsTable;
  outbound_jobs: OutboundJobsTable;
  outbox_events: OutboxEventsTable;
  send_usage: SendUsageTable;
  delivery_attempts: DeliveryAttemptsTable;
  message_events: MessageEventsTable;
  idempotency_keys: IdempotencyKeysTable;
}
