-- Webhooks: endpoints, the jobs that carry each outbox event to each endpoint (with
-- leases, like outbound_jobs), and the delivery log (one row per attempt).
ALTER TABLE outbox_events ADD COLUMN dispatched_at timestamptz;
CREATE INDEX outbox_events_undispatched ON outbox_events (seq) WHERE dispatched_at IS NULL;

CREATE TABLE webhook_endpoints (
  seq               bigserial   NOT NULL,
  id                text        PRIMARY KEY,
  workspace_id      text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url               text        NOT NULL,
  events            text[]      NOT NULL,
  secret            text        NOT NULL,
  status            text        NOT NULL CHECK (status IN ('enabled', 'disabled')),
  disabled_reason   text,
  failing_since     timestamptz,
  created_at        timestamptz NOT NULL,
  secret_rotated_at timestamptz
);
CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id, seq);

-- A finished job is deleted: the delivery log keeps its history.
CREATE TABLE webhook_jobs (
  id              text        PRIMARY KEY,
  workspace_id    text        NOT NULL,
  endpoint_id     text        NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id        text        NOT NULL,
  event           text        NOT NULL,
  message_id      text        NOT NULL,
  payload         jsonb       NOT NULL,
  attempts        integer     NOT NULL,
  next_attempt_at timestamptz NOT NULL,
  created_at      timestamptz NOT NULL,
  lease_owner     text,
  lease_until     timestamptz
);
CREATE INDEX webhook_jobs_due ON webhook_jobs (next_attempt_at);
CREATE INDEX webhook_jobs_endpoint ON webhook_jobs (endpoint_id);

CREATE TABLE webhook_attempts (
  seq          bigserial   NOT NULL,
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL,
  endpoint_id  text        NOT NULL,
  job_id       text,
  event_id     text        NOT NULL,
  event        text        NOT NULL,
  message_id   text        NOT NULL,
  payload      jsonb       NOT NULL,
  kind         text        NOT NULL,
  attempt      integer     NOT NULL,
  ok           boolean     NOT NULL,
  status_code  integer,
  error        text,
  response     text        NOT NULL,
  duration_ms  integer     NOT NULL,
  attempted_at timestamptz NOT NULL
);
CREATE INDEX webhook_attempts_newest ON webhook_attempts (workspace_id, seq DESC);
CREATE INDEX webhook_attempts_age ON webhook_attempts (attempted_at);
