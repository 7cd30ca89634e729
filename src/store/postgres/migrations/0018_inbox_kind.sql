-- The team inbox listed by kind (svc inbox list --kind, GET /api/v2/inbox/items?kind=): bounces or
-- complaints to triage, newest first, without walking the workspace's other items.
CREATE INDEX inbox_items_kind ON inbox_items (workspace_id, kind, seq DESC);
