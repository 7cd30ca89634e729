-- Newsletter lists and their subscribers. A subscriber's email is unique on its list;
-- pages go by (list, status, seq) and (list, seq); the contacts quota counts distinct emails of a
-- workspace (workspace_id, email); the unsubscribe URL finds a subscriber by its token. A deleted
-- list is marked at once and its subscribers go in batches (a million in one statement would hold
-- a transaction for a long time).
CREATE TABLE lists (
  seq bigserial,
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  from_name text NOT NULL DEFAULT '',
  from_address text NOT NULL DEFAULT '',
  reply_to text NOT NULL DEFAULT '',
  double_opt_in boolean NOT NULL DEFAULT false,
  -- Deleted: never shown again; its subscribers are removed in batches afterwards (sweep).
  deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX lists_workspace ON lists (workspace_id, seq);

CREATE TABLE subscribers (
  seq bigserial,
  id text PRIMARY KEY,
  list_id text NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  email text NOT NULL,
  name text NOT NULL DEFAULT '',
  status text NOT NULL,
  unsubscribe_token text NOT NULL UNIQUE,
  tags jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (list_id, email)
);
CREATE INDEX subscribers_page ON subscribers (list_id, seq);
CREATE INDEX subscribers_status_page ON subscribers (list_id, status, seq);
CREATE INDEX subscribers_contacts ON subscribers (workspace_id, email);
-- When a double opt-in confirmation email last went to the subscriber (none again within an hour).
ALTER TABLE subscribers ADD COLUMN confirm_sent_at timestamptz;
