-- The send pipeline: contents, one message record per recipient, the outbound queue with
-- leases, the webhook outbox, and suppressions.
CREATE TABLE send_contents (
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  source       text        NOT NULL,
  from_addr    text        NOT NULL,
  from_name    text,
  domain_id    text        NOT NULL,
  to_list      jsonb       NOT NULL,
  cc_list      jsonb       NOT NULL,
  subject      text        NOT NULL,
  html         text,
  text_body    text,
  message_id   text        NOT NULL,
  notes        jsonb       NOT NULL DEFAULT '[]',
  created_at   timestamptz NOT NULL
);

CREATE TABLE messages (
  seq                      bigserial   NOT NULL,
  id                       text        PRIMARY KEY,
  workspace_id             text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  content_id               text        NOT NULL,
  source                   text        NOT NULL,
  from_addr                text        NOT NULL,
  to_addr                  text        NOT NULL,
  kind                     text        NOT NULL,
  subject                  text        NOT NULL,
  status                   text        NOT NULL,
  open_count               integer     NOT NULL DEFAULT 0,
  click_count              integer     NOT NULL DEFAULT 0,
  reply_count              integer     NOT NULL DEFAULT 0,
  first_open_after_seconds integer,
  message_id               text        NOT NULL,
  error                    text,
  created_at               timestamptz NOT NULL,
  sent_at                  timestamptz,
  opened_at                timestamptz,
  clicked_at               timestamptz,
  replied_at               timestamptz,
  bounced_at               timestamptz
);
CREATE INDEX messages_newest ON messages (workspace_id, seq DESC);
CREATE INDEX messages_by_status ON messages (workspace_id, status, seq DESC);
CREATE INDEX messages_created ON messages (created_at);

CREATE TABLE outbound_jobs (
  id              text        PRIMARY KEY,
  workspace_id    text        NOT NULL,
  content_id      text        NOT NULL,
  domain          text        NOT NULL,
  message_ids     jsonb       NOT NULL,
  open_token      text        NOT NULL,
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  created_at      timestamptz NOT NULL,
  last_error      text,
  lease_owner     text,
  lease_until     timestamptz
);
CREATE INDEX outbound_jobs_due ON outbound_jobs (next_attempt_at);
CREATE INDEX outbound_jobs_content ON outbound_jobs (content_id);

CREATE TABLE outbox_events (
  seq          bigserial   NOT NULL,
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL,
  event        text        NOT NULL,
  message_id   text        NOT NULL,
  payload      jsonb       NOT NULL,
  created_at   timestamptz NOT NULL
);
CREATE INDEX outbox_events_order ON outbox_events (seq);

CREATE TABLE suppressions (
  workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  address      text        NOT NULL,
  reason       text        NOT NULL,
  detail       text,
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, address)
);
