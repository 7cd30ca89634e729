-- A broadcast is one row of the Sent folder, not one per batch of its copies: a batch's content
-- names its campaign, and only the first batch's is in the folder (the row the campaign shows as).
ALTER TABLE send_contents ADD COLUMN campaign_id text;
ALTER TABLE send_contents ADD COLUMN in_sent boolean NOT NULL DEFAULT true;
