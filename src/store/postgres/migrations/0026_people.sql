-- People of the web app. An account is one person (one email) across workspaces; a
-- membership gives them a role in one. Links and sessions keep only the SHA-256 of their tokens.
CREATE TABLE accounts (
  seq             bigserial   NOT NULL,
  id              text        PRIMARY KEY,
  email           text        NOT NULL UNIQUE,
  name            text,
  password_hash   text,
  created_at      timestamptz NOT NULL,
  last_sign_in_at timestamptz
);

CREATE TABLE memberships (
  seq          bigserial   NOT NULL,
  workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  account_id   text        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  role         text        NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at   timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, account_id)
);
CREATE INDEX memberships_account ON memberships (account_id);

CREATE TABLE signin_links (
  token_hash text        PRIMARY KEY,
  account_id text        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX signin_links_account ON signin_links (account_id);

CREATE TABLE sessions (
  token_hash text        PRIMARY KEY,
  account_id text        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);
