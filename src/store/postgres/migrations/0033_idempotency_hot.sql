-- Idempotency-Key claims cost less.
--
-- Completing a claim (in its send's statement) rewrites the row's state, response and created_at.
-- With created_at indexed, every completion was a new row version in both indexes; the hourly purge
-- reads the whole table anyway (about a day of keys), so the age index only cost the claim and the
-- completion. Without it, and with room left on each page, a completion is a HOT update: the row
-- changes in place and no index is touched.
DROP INDEX IF EXISTS idempotency_keys_age;
ALTER TABLE idempotency_keys SET (fillfactor = 70);
-- The store analyses this table as it grows (so that the completion's cached plan finds claims by
-- the primary key): what that needs is the table's size, not the spread of its values, so ANALYZE
-- samples 3,000 rows instead of 30,000 (it took 70 ms at a few tens of thousands of keys).
ALTER TABLE idempotency_keys
  ALTER COLUMN workspace_id SET STATISTICS 10,
  ALTER COLUMN key SET STATISTICS 10,
  ALTER COLUMN state SET STATISTICS 10,
  ALTER COLUMN token SET STATISTICS 10,
  ALTER COLUMN response SET STATISTICS 10,
  ALTER COLUMN created_at SET STATISTICS 10,
  ALTER COLUMN fingerprint SET STATISTICS 10,
  ALTER COLUMN heartbeat_at SET STATISTICS 10;
