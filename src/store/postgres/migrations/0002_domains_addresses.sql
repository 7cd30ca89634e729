-- Domains with their DNS checks, and registered addresses.
CREATE TABLE domains (
  seq              bigserial   NOT NULL,
  id               text        PRIMARY KEY,
  workspace_id     text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  domain           text        NOT NULL,
  status           text        NOT NULL CHECK (status IN ('pending', 'verified')),
  token            text        NOT NULL,
  dkim_public_key  text        NOT NULL,
  dkim_private_key text        NOT NULL,
  legacy           boolean     NOT NULL DEFAULT false,
  dkim_verified    boolean     NOT NULL DEFAULT false,
  records          jsonb,
  history          jsonb       NOT NULL DEFAULT '[]',
  created_at       timestamptz NOT NULL,
  verified_at      timestamptz,
  checked_at       timestamptz,
  UNIQUE (workspace_id, domain)
);

-- A domain is verified in one workspace at most: the first to verify wins, even across daemons.
CREATE UNIQUE INDEX domains_verified_once ON domains (domain) WHERE status = 'verified';

CREATE TABLE addresses (
  seq          bigserial   NOT NULL,
  id           text        PRIMARY KEY,
  workspace_id text        NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  domain_id    text        NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  address      text        NOT NULL,
  status       text        NOT NULL CHECK (status IN ('active', 'disabled')),
  created_at   timestamptz NOT NULL,
  UNIQUE (workspace_id, address)
);
