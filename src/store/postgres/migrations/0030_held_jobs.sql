-- An outbound job the operator holds (a restored backup's queue): never claimed until released.
ALTER TABLE outbound_jobs ADD COLUMN held boolean NOT NULL DEFAULT false;
