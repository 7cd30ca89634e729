-- A rotated webhook secret stays valid for a grace period: deliveries carry a signature
-- with the previous secret too (X-Svc-Signature-Previous) until previous_secret_until.
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret text;
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_until timestamptz;
