-- Every message record has its own token (the pixel's, tracked links', unsubscribe's), and a job
-- none: the job-wide open token of jobs queued before tokens were per recipient is gone.
UPDATE messages SET token = md5(random()::text || id) WHERE token IS NULL;
ALTER TABLE messages ALTER COLUMN token SET NOT NULL;
ALTER TABLE outbound_jobs DROP COLUMN open_token;
