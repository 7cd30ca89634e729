-- Queue classes. Transactional jobs (0) are claimed before bulk ones (1, broadcasts and
-- sequences); within a class the workspaces take turns (postgres/queue.ts), found by this index.
ALTER TABLE outbound_jobs ADD COLUMN priority smallint NOT NULL DEFAULT 0;
CREATE INDEX outbound_jobs_fair ON outbound_jobs (priority, workspace_id, next_attempt_at);
-- Jobs due at the same time go in the order they were queued (a broadcast's copies in order).
ALTER TABLE outbound_jobs ADD COLUMN seq bigserial;
