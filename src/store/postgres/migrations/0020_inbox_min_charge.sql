-- A received item counts at least 4096 bytes (a filesystem block) against its
-- workspace's storage (model/inbox.ts storageCharge), so the running sums are counted again.
UPDATE inbox_usage u
   SET bytes = COALESCE((SELECT sum(CASE WHEN i.size = 0 THEN 0 ELSE GREATEST(i.size, 4096) END) FROM inbox_items i WHERE i.workspace_id = u.workspace_id), 0);
