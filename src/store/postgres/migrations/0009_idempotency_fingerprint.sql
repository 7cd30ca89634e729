-- The hash of the request that holds an Idempotency-Key, so the same key sent with another body
-- is refused (422) instead of silently replaying the first send. Keys claimed before this have none.
ALTER TABLE idempotency_keys ADD COLUMN fingerprint text;
-- A running request's heartbeat, on the database's clock: a claim whose request died is free again
-- once it stops beating, whatever the clocks of the daemons say.
ALTER TABLE idempotency_keys ADD COLUMN heartbeat_at timestamptz;
