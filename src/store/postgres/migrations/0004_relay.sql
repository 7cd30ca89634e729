-- The relay: what the service noted on a message (attachments dropped), and the STARTTLS
-- certificate made once when the operator gives none, shared by every daemon.
ALTER TABLE messages ADD COLUMN notes jsonb NOT NULL DEFAULT '[]';

CREATE TABLE tls_identity (
  id         integer     PRIMARY KEY CHECK (id = 1),
  cert       text        NOT NULL,
  key        text        NOT NULL,
  created_at timestamptz NOT NULL
);
