-- What vouched for a received message (SPF, DKIM, DMARC and the verdict, src/inbox/authenticate.ts);
-- null for items received before the MX checked.
ALTER TABLE inbox_items ADD COLUMN auth jsonb;
