-- The trial's end. How many of a trial workspace's three warnings were sent and when the
-- last went; a warning is recorded once (UPDATE ... WHERE trial_warnings = n - 1), whichever
-- daemon sends it.
ALTER TABLE workspaces ADD COLUMN trial_warnings integer NOT NULL DEFAULT 0, ADD COLUMN trial_warned_at timestamptz;
