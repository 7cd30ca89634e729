-- The rules that lived in functions here (the rate window, the send quota's debit, the suppressed
-- recipient's refusal, a fan-out batch's and a sequence step's compare-and-set) are written once
-- for both SQL backends now (src/store/sql/, src/model/): the functions go.
DROP FUNCTION IF EXISTS svc_rate_hit(text, timestamptz, bigint, integer, integer);
DROP FUNCTION IF EXISTS svc_debit(text, integer, jsonb);
DROP FUNCTION IF EXISTS svc_unsuppressed(text, text[]);
DROP FUNCTION IF EXISTS svc_campaign_progress(jsonb);
DROP FUNCTION IF EXISTS svc_enrolment_step(jsonb);

-- A campaign copy's subscriber, as a column both backends query the same way.
ALTER TABLE messages ADD COLUMN subscriber_id text GENERATED ALWAYS AS (subscriber->>'id') STORED;
DROP INDEX IF EXISTS messages_subscriber;
CREATE INDEX messages_subscriber ON messages (subscriber_id, seq) WHERE campaign_id IS NOT NULL;
