-- Deleting a workspace (its owner in the app, or the trial's end). The row is marked at
-- once (its keys and memberships go in the same transaction, and its name is freed for a new
-- workspace); its data is removed afterwards in batches by whichever daemon holds the claim
-- (deletion_owner, renewed at each batch, taken over when stale), and the row goes last.
ALTER TABLE workspaces
  ADD COLUMN deleted_at timestamptz,
  ADD COLUMN deleted_name text,
  ADD COLUMN deletion_reason text,
  ADD COLUMN deletion_owner text,
  ADD COLUMN deletion_claimed_at timestamptz;
-- The purge finds a workspace's enrolments by it (the only index on them is for active ones).
CREATE INDEX enrolments_workspace ON enrolments (workspace_id);
