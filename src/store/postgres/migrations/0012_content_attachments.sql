-- Attachments and inline (related) parts of relayed mail, kept with the send's content and composed
-- into every copy (base64 in jsonb; NULL when there are none).
ALTER TABLE send_contents ADD COLUMN attachments jsonb;
