-- The fair claim reads each class and workspace's first jobs from this index, in the
-- order they take their turns, instead of ranking every due job of the queue (postgres/queue.ts).
CREATE INDEX outbound_jobs_turns ON outbound_jobs (priority, workspace_id, next_attempt_at, seq);
DROP INDEX outbound_jobs_fair;
