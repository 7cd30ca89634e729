-- What `svc messages explain` tells: how a message came in (the key, the Idempotency-Key), and what
-- each hand-off attempt met (host, TLS, reply, duration, the signature), removed with the message.
ALTER TABLE messages ADD COLUMN via jsonb;

CREATE TABLE delivery_attempts (
  seq          bigserial   NOT NULL,
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL,
  message_id   text        NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  attempt      integer     NOT NULL,
  at           timestamptz NOT NULL,
  duration_ms  integer     NOT NULL,
  host         text,
  ip           text,
  tls          boolean,
  outcome      text        NOT NULL,
  class        text,
  reply        text        NOT NULL,
  dkim         jsonb
);
CREATE INDEX delivery_attempts_message ON delivery_attempts (message_id, seq);
