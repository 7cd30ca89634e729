-- Deferred mail is visible on its message: how many attempts were made, the last temporary reply
-- or failure, and when the next attempt is due.
ALTER TABLE messages ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE messages ADD COLUMN last_error text;
ALTER TABLE messages ADD COLUMN next_attempt_at timestamptz;
