-- What the team marked on a thread of its shared inbox (read, archived). One row per
-- thread that was ever marked; a thread's flags follow from these times and its newest received
-- item (model/inbox.ts threadFlags), so new mail makes a thread unread and brings it back from the
-- archive without a write here.
CREATE TABLE inbox_thread_state (
  workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  thread_id    text        NOT NULL,
  read_at      timestamptz,
  archived_at  timestamptz,
  PRIMARY KEY (workspace_id, thread_id)
);
