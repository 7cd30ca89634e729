-- The sender's display name of a received item (the From header's phrase), shown beside its address.
ALTER TABLE inbox_items ADD COLUMN from_name text;
