-- Opens and clicks (and later replies) of each message record, with what most likely caused each;
-- a record is found by its own token (the pixel's and the tracked links').
CREATE UNIQUE INDEX messages_token ON messages (token) WHERE token IS NOT NULL;

CREATE TABLE message_events (
  seq          bigserial   NOT NULL,
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL,
  message_id   text        NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  kind         text        NOT NULL,
  prefetch     boolean     NOT NULL,
  source       text        NOT NULL,
  reason       text        NOT NULL,
  url          text,
  ip           text,
  user_agent   text,
  created_at   timestamptz NOT NULL
);
CREATE INDEX message_events_message ON message_events (message_id, seq);
