-- Workspaces and API keys. `seq` keeps insertion order for lists, as the file store does.
CREATE TABLE workspaces (
  seq        bigserial   NOT NULL,
  id         text        PRIMARY KEY,
  name       text        NOT NULL UNIQUE,
  plan       text        NOT NULL,
  created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  seq          bigserial   NOT NULL,
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text        NOT NULL,
  scopes       text[]      NOT NULL,
  prefix       text        NOT NULL,
  hash         text        NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL,
  revoked_at   timestamptz
);

CREATE INDEX api_keys_workspace ON api_keys (workspace_id, seq);
