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
