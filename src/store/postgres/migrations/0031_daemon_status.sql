-- Each running daemon's report of itself (svc status), replaced every few seconds.
CREATE TABLE daemon_status (
  id         text        PRIMARY KEY,
  report     jsonb       NOT NULL,
  updated_at timestamptz NOT NULL
);
