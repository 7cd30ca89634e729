-- Secrets every daemon of one database shares (the key that signs tracked links), made once.
CREATE TABLE service_secrets (
  name  text PRIMARY KEY,
  value text NOT NULL
);
