-- A list's page of subscribers in the order they came (no status asked): without this index SQLite
-- read the workspace's subscribers by email and sorted them all for a page of ten (Postgres has
-- had it from the start: subscribers_page).
CREATE INDEX subscribers_page ON subscribers (list_id, seq);
