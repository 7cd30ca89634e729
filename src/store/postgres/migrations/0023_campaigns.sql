-- Broadcasts. A campaign holds a broadcast's content and its fan-out's position in the
-- list (advanced in the statement that stores the copies it covers). A copy record names its
-- campaign and its subscriber (name and unsubscribe token, what the copy is composed with).
CREATE TABLE campaigns (
  seq bigserial,
  id text PRIMARY KEY,
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  list_id text NOT NULL,
  from_addr text NOT NULL,
  from_name text NOT NULL DEFAULT '',
  subject text NOT NULL,
  html text NOT NULL,
  text_body text NOT NULL,
  preheader text NOT NULL DEFAULT '',
  status text NOT NULL,
  recipients integer NOT NULL,
  cursor bigint NOT NULL DEFAULT 0,
  copies integer NOT NULL DEFAULT 0,
  unsubscribed integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  fanned_out_at timestamptz
);
CREATE INDEX campaigns_workspace ON campaigns (workspace_id, seq);
CREATE INDEX campaigns_unfinished ON campaigns (seq) WHERE status IN ('queued', 'sending');

ALTER TABLE messages ADD COLUMN campaign_id text;
ALTER TABLE messages ADD COLUMN subscriber jsonb;
CREATE INDEX messages_campaign ON messages (campaign_id) WHERE campaign_id IS NOT NULL;
-- An unsubscribe is counted against the newest campaign that sent the subscriber a copy.
CREATE INDEX messages_subscriber ON messages ((subscriber->>'id'), seq) WHERE campaign_id IS NOT NULL;
ALTER TABLE send_contents ADD COLUMN preheader text;

-- A fan-out batch's progress (messages_accept): only from the position the campaign is at.
CREATE FUNCTION svc_campaign_progress(p jsonb) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  UPDATE campaigns SET cursor = (p->>'cursor')::bigint, copies = (p->>'copies')::integer,
         fanned_out_at = COALESCE(fanned_out_at, (p->>'fanned_out_at')::timestamptz)
   WHERE id = p->>'id' AND cursor = (p->>'from')::bigint;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = 'svc_campaign_moved';
  END IF;
  RETURN 1;
END $$;
