// Postgres: the service's own shared secrets, one row each; the first daemon to save one wins.
import type { SecretStore } from '../port/secrets.js';
import type { PgDb } from './db.js';

export function pgSecrets(db: PgDb): SecretStore {
  return {
    keep: async (name, value) => {
      const [r] = await db.rows<{ value: string }>(
        `WITH ins AS (INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value)
         SELECT value FROM ins UNION ALL SELECT value FROM service_secrets WHERE name = $1 LIMIT 1`,
        [name, value],
      );
      return r!.value;
    },
  };
}
