-- The embedded store's data plane: everything that grows with traffic. Timestamps are ISO 8601
-- text in UTC with milliseconds (Date#toISOString), so that text order is time order; JSON is
-- text; booleans are 0 or 1. The workspaces, keys, domains and the rest of the control plane are
-- in svc.json (the document), so nothing here has a foreign key to them.

CREATE TABLE suppressions (
  workspace_id text NOT NULL,
  address text NOT NULL,
  reason text NOT NULL,
  detail text,
  created_at text NOT NULL,
  message_id text,
  class text,
  PRIMARY KEY (workspace_id, address)
) WITHOUT ROWID;

CREATE TABLE daemon_status (
  id text PRIMARY KEY,
  report text NOT NULL,
  updated_at text NOT NULL
) WITHOUT ROWID;

CREATE TABLE rate_buckets (
  key_id text NOT NULL,
  sec integer NOT NULL,
  n integer NOT NULL,
  PRIMARY KEY (key_id, sec)
) WITHOUT ROWID;

-- A send: its content once, a record per recipient, jobs per recipient domain, the events the
-- webhook worker dispatches, the quota's counts and the Idempotency-Key claims.
CREATE TABLE send_contents (
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  source text NOT NULL,
  from_addr text NOT NULL,
  from_name text,
  domain_id text NOT NULL,
  to_list text NOT NULL,
  cc_list text NOT NULL,
  subject text NOT NULL,
  html text,
  text_body text,
  message_id text NOT NULL,
  notes text NOT NULL DEFAULT '[]',
  created_at text NOT NULL,
  attachments text,
  thread_id text,
  in_reply_to text,
  refs text,
  preheader text,
  raw blob,
  campaign_id text,
  in_sent integer NOT NULL DEFAULT 1
);
CREATE INDEX send_contents_mid ON send_contents (workspace_id, message_id);
CREATE INDEX send_contents_newest ON send_contents (workspace_id, created_at DESC);
CREATE INDEX send_contents_thread ON send_contents (workspace_id, thread_id);
CREATE INDEX send_contents_created ON send_contents (created_at);

CREATE TABLE messages (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  content_id text NOT NULL,
  source text NOT NULL,
  from_addr text NOT NULL,
  to_addr text NOT NULL,
  kind text NOT NULL,
  subject text NOT NULL,
  status text NOT NULL,
  open_count integer NOT NULL DEFAULT 0,
  click_count integer NOT NULL DEFAULT 0,
  reply_count integer NOT NULL DEFAULT 0,
  first_open_after_seconds integer,
  message_id text NOT NULL,
  error text,
  created_at text NOT NULL,
  sent_at text,
  opened_at text,
  clicked_at text,
  replied_at text,
  bounced_at text,
  notes text NOT NULL DEFAULT '[]',
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at text,
  token text NOT NULL UNIQUE,
  via text,
  campaign_id text,
  subscriber text,
  subscriber_id text GENERATED ALWAYS AS (json_extract(subscriber, '$.id')) VIRTUAL
);
CREATE INDEX messages_by_status ON messages (workspace_id, status, seq DESC);
CREATE INDEX messages_campaign ON messages (campaign_id) WHERE campaign_id IS NOT NULL;
CREATE INDEX messages_created ON messages (created_at);
CREATE INDEX messages_header_id ON messages (workspace_id, message_id);
CREATE INDEX messages_newest ON messages (workspace_id, seq DESC);
CREATE INDEX messages_subscriber ON messages (subscriber_id, seq) WHERE campaign_id IS NOT NULL;

CREATE TABLE outbound_jobs (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  content_id text NOT NULL,
  domain text NOT NULL,
  message_ids text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at text NOT NULL,
  created_at text NOT NULL,
  last_error text,
  lease_owner text,
  lease_until text,
  priority integer NOT NULL DEFAULT 0,
  held integer NOT NULL DEFAULT 0
);
CREATE INDEX outbound_jobs_content ON outbound_jobs (content_id);
CREATE INDEX outbound_jobs_turns ON outbound_jobs (priority, workspace_id, next_attempt_at, seq);

CREATE TABLE outbox_events (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  event text NOT NULL,
  message_id text NOT NULL,
  payload text NOT NULL,
  created_at text NOT NULL,
  dispatched_at text
);
CREATE INDEX outbox_events_undispatched ON outbox_events (seq) WHERE dispatched_at IS NULL;
CREATE INDEX outbox_events_created ON outbox_events (created_at);

CREATE TABLE send_usage (
  workspace_id text NOT NULL,
  window_key text NOT NULL,
  used integer NOT NULL,
  PRIMARY KEY (workspace_id, window_key)
) WITHOUT ROWID;

CREATE TABLE delivery_attempts (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  message_id text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  at text NOT NULL,
  duration_ms integer NOT NULL,
  host text,
  ip text,
  tls integer,
  outcome text NOT NULL,
  class text,
  reply text NOT NULL,
  dkim text
);
CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id, seq);

CREATE TABLE message_events (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  message_id text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  kind text NOT NULL,
  prefetch integer NOT NULL,
  source text NOT NULL,
  reason text NOT NULL,
  url text,
  ip text,
  user_agent text,
  created_at text NOT NULL
);
CREATE INDEX message_events_message ON message_events (message_id, seq);

CREATE TABLE idempotency_keys (
  workspace_id text NOT NULL,
  key text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'completed')),
  token text NOT NULL,
  response text,
  created_at text NOT NULL,
  fingerprint text,
  heartbeat_at text,
  PRIMARY KEY (workspace_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Webhook deliveries: a job per endpoint and event, the attempts kept for the log and replays.
CREATE TABLE webhook_jobs (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  endpoint_id text NOT NULL,
  event_id text NOT NULL,
  event text NOT NULL,
  message_id text NOT NULL,
  payload text NOT NULL,
  attempts integer NOT NULL,
  next_attempt_at text NOT NULL,
  created_at text NOT NULL,
  lease_owner text,
  lease_until text
);
CREATE INDEX webhook_jobs_due ON webhook_jobs (next_attempt_at);
CREATE INDEX webhook_jobs_endpoint ON webhook_jobs (endpoint_id);

CREATE TABLE webhook_attempts (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  endpoint_id text NOT NULL,
  job_id text,
  event_id text NOT NULL,
  event text NOT NULL,
  message_id text NOT NULL,
  payload text NOT NULL,
  kind text NOT NULL,
  attempt integer NOT NULL,
  ok integer NOT NULL,
  status_code integer,
  error text,
  response text NOT NULL,
  duration_ms integer NOT NULL,
  attempted_at text NOT NULL
);
CREATE INDEX webhook_attempts_age ON webhook_attempts (attempted_at);
CREATE INDEX webhook_attempts_newest ON webhook_attempts (workspace_id, seq DESC);

-- The team inbox.
CREATE TABLE inbox_items (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  kind text NOT NULL,
  thread_id text NOT NULL,
  from_addr text NOT NULL,
  from_name text,
  to_list text NOT NULL,
  cc_list text NOT NULL,
  subject text NOT NULL,
  message_id text,
  in_reply_to text,
  refs text NOT NULL,
  headers text NOT NULL,
  text_body text,
  html text,
  envelope text,
  raw text,
  size integer NOT NULL,
  message_ref text,
  note text,
  created_at text NOT NULL,
  auth text
);
CREATE INDEX inbox_items_created ON inbox_items (created_at);
CREATE INDEX inbox_items_kind ON inbox_items (workspace_id, kind, seq DESC);
CREATE INDEX inbox_items_mid ON inbox_items (workspace_id, message_id);
CREATE INDEX inbox_items_newest ON inbox_items (workspace_id, seq DESC);
CREATE INDEX inbox_items_ref ON inbox_items (message_ref);
CREATE INDEX inbox_items_thread ON inbox_items (workspace_id, thread_id);

CREATE TABLE inbox_thread_state (
  workspace_id text NOT NULL,
  thread_id text NOT NULL,
  read_at text,
  archived_at text,
  PRIMARY KEY (workspace_id, thread_id)
) WITHOUT ROWID;

CREATE TABLE inbox_usage (
  workspace_id text PRIMARY KEY,
  bytes integer NOT NULL
) WITHOUT ROWID;

-- Lists' subscribers (the lists' settings are in svc.json), broadcasts and sequences.
CREATE TABLE subscribers (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  list_id text NOT NULL,
  workspace_id text NOT NULL,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  status text NOT NULL,
  unsubscribe_token text NOT NULL UNIQUE,
  tags text NOT NULL DEFAULT '[]',
  created_at text NOT NULL,
  updated_at text NOT NULL,
  confirm_sent_at text,
  UNIQUE (list_id, email)
);
CREATE INDEX subscribers_contacts ON subscribers (workspace_id, email);
CREATE INDEX subscribers_status_page ON subscribers (list_id, status, seq);

CREATE TABLE campaigns (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  list_id text NOT NULL,
  from_addr text NOT NULL,
  from_name text NOT NULL DEFAULT '',
  subject text NOT NULL,
  html text NOT NULL,
  text_body text NOT NULL,
  preheader text NOT NULL DEFAULT '',
  status text NOT NULL,
  recipients integer NOT NULL,
  cursor integer NOT NULL DEFAULT 0,
  copies integer NOT NULL DEFAULT 0,
  unsubscribed integer NOT NULL DEFAULT 0,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  fanned_out_at text
);
CREATE INDEX campaigns_unfinished ON campaigns (seq) WHERE status IN ('queued', 'sending');
CREATE INDEX campaigns_workspace ON campaigns (workspace_id, seq);

CREATE TABLE sequences (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  list_id text NOT NULL,
  name text NOT NULL,
  trigger text NOT NULL DEFAULT 'subscribe',
  active integer NOT NULL DEFAULT 1,
  created_at text NOT NULL,
  updated_at text NOT NULL
);
CREATE INDEX sequences_list ON sequences (list_id);
CREATE INDEX sequences_workspace ON sequences (workspace_id, seq);

CREATE TABLE sequence_steps (
  id text PRIMARY KEY,
  sequence_id text NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  position integer NOT NULL,
  delay_hours integer NOT NULL,
  subject text NOT NULL,
  body_html text NOT NULL DEFAULT '',
  body_text text NOT NULL DEFAULT '',
  created_at text NOT NULL,
  UNIQUE (sequence_id, position)
);

CREATE TABLE enrolments (
  seq integer PRIMARY KEY,
  id text NOT NULL UNIQUE,
  workspace_id text NOT NULL,
  sequence_id text NOT NULL,
  list_id text NOT NULL,
  subscriber_id text NOT NULL,
  status text NOT NULL,
  position integer NOT NULL,
  last_at text NOT NULL,
  due_at text,
  reason text,
  created_at text NOT NULL,
  lease_owner text,
  lease_until text,
  UNIQUE (sequence_id, subscriber_id)
);
CREATE INDEX enrolments_due ON enrolments (due_at) WHERE status = 'active' AND due_at IS NOT NULL;
CREATE INDEX enrolments_subscriber ON enrolments (workspace_id, subscriber_id) WHERE status = 'active';
CREATE INDEX enrolments_workspace ON enrolments (workspace_id);

-- Where each webhook endpoint's run of failed deliveries began (the endpoints are in svc.json:
-- a failure does not rewrite the document).
CREATE TABLE endpoint_failures (
  endpoint_id text PRIMARY KEY,
  since text NOT NULL
) WITHOUT ROWID;
