-- The team inbox: what the inbound MX received, with its raw message, threaded with the
-- Sent copies (the sends' own contents, which now carry the thread an inbox reply belongs to).
CREATE TABLE inbox_items (
  seq          bigserial   NOT NULL,
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  kind         text        NOT NULL,
  thread_id    text        NOT NULL,
  from_addr    text        NOT NULL,
  to_list      jsonb       NOT NULL,
  cc_list      jsonb       NOT NULL,
  subject      text        NOT NULL,
  message_id   text,
  in_reply_to  text,
  refs         jsonb       NOT NULL,
  headers      text        NOT NULL,
  text_body    text,
  html         text,
  envelope     jsonb,
  raw          text,
  size         bigint      NOT NULL,
  message_ref  text,
  note         text,
  created_at   timestamptz NOT NULL
);
CREATE INDEX inbox_items_newest ON inbox_items (workspace_id, seq DESC);
CREATE INDEX inbox_items_thread ON inbox_items (workspace_id, thread_id);
CREATE INDEX inbox_items_mid ON inbox_items (workspace_id, message_id);
CREATE INDEX inbox_items_ref ON inbox_items (message_ref);
CREATE INDEX inbox_items_created ON inbox_items (created_at);

-- Each workspace's storage use (the bytes of its received items), kept with every receive and
-- purge, so that the MX reads one row at RCPT instead of summing the inbox.
CREATE TABLE inbox_usage (
  workspace_id text   PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  bytes        bigint NOT NULL
);

ALTER TABLE send_contents ADD COLUMN thread_id text, ADD COLUMN in_reply_to text, ADD COLUMN refs jsonb;
CREATE INDEX send_contents_newest ON send_contents (workspace_id, created_at DESC);
CREATE INDEX send_contents_mid ON send_contents (workspace_id, message_id);
CREATE INDEX send_contents_thread ON send_contents (workspace_id, thread_id);
CREATE INDEX messages_header_id ON messages (workspace_id, message_id);
