-- Relayed mail kept as it came (SendContent.raw): the relay reads only its header block before the
-- 250, and the message's body is read when it is composed, off the daemon's main thread.
ALTER TABLE send_contents ADD COLUMN raw bytea;
