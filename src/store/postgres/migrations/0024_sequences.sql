-- Timed sequences. An enrolment is the scheduler's due work (due_at, leased on the
-- database's clock so that several daemons never work on one at once); a step's send moves it on in
-- the statement that stores the step's message record (svc_enrolment_step), so each step goes once.
CREATE TABLE sequences (
  seq bigserial,
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  list_id text NOT NULL,
  name text NOT NULL,
  trigger text NOT NULL DEFAULT 'subscribe',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sequences_workspace ON sequences (workspace_id, seq);
CREATE INDEX sequences_list ON sequences (list_id);

CREATE TABLE sequence_steps (
  id text PRIMARY KEY,
  sequence_id text NOT NULL REFERENCES sequences (id) ON DELETE CASCADE,
  workspace_id text NOT NULL,
  position integer NOT NULL,
  delay_hours integer NOT NULL,
  subject text NOT NULL,
  body_html text NOT NULL DEFAULT '',
  body_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL,
  UNIQUE (sequence_id, position)
);

CREATE TABLE enrolments (
  seq bigserial,
  id text PRIMARY KEY,
  workspace_id text NOT NULL,
  sequence_id text NOT NULL,
  list_id text NOT NULL,
  subscriber_id text NOT NULL,
  status text NOT NULL,
  position integer NOT NULL,
  last_at timestamptz NOT NULL,
  due_at timestamptz,
  reason text,
  created_at timestamptz NOT NULL,
  lease_owner text,
  lease_until timestamptz,
  UNIQUE (sequence_id, subscriber_id)
);
CREATE INDEX enrolments_due ON enrolments (due_at) WHERE status = 'active' AND due_at IS NOT NULL;
CREATE INDEX enrolments_subscriber ON enrolments (workspace_id, subscriber_id) WHERE status = 'active';

-- A step's send (messages_accept): only from the position the enrolment is at, while active.
CREATE FUNCTION svc_enrolment_step(p jsonb) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  UPDATE enrolments SET position = (p->>'position')::integer, last_at = (p->>'last_at')::timestamptz,
         due_at = (p->>'due_at')::timestamptz, reason = p->>'reason', lease_owner = NULL, lease_until = NULL
   WHERE id = p->>'id' AND position = (p->>'from')::integer AND status = 'active';
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'svc_enrolment_moved';
  END IF;
  RETURN 1;
END $$;
