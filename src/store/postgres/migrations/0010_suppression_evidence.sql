-- A suppression keeps its evidence: the message whose bounce made it and the kind of refusal
-- (bad-mailbox, bad-domain, ...), beside the reply already kept in detail.
ALTER TABLE suppressions ADD COLUMN message_id text;
ALTER TABLE suppressions ADD COLUMN class text;
