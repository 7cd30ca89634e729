// Postgres: the service's own shared secrets, one row each; the first daemon to save one wins.
// Sealed with the operator's key when there is one (secret-box.ts).
import { SvcError } from '../../errors.js';
import type { SecretStore } from '../port/secrets.js';
import { openSecret, sealSecret, type SecretBox } from '../secret-box.js';
import type { PgDb } from './db.js';

export function pgSecrets(db: PgDb, box: SecretBox | null = null): SecretStore {
  return {
    keep: async (name, value) => {
      const [r] = await db.rows<{ value: string }>(
        `WITH ins AS (INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value)
         SELECT value FROM ins UNION ALL SELECT value FROM service_secrets WHERE name = $1 LIMIT 1`,
        [name, sealSecret(box, value)],
      );
      // Another daemon's insert of the same name, not committed when this statement began: it
      // waited for it and inserted nothing, but its snapshot cannot see that row. A new statement can.
      const kept = r ?? (await db.rows<{ value: string }>(`SELECT value FROM service_secrets WHERE name = $1`, [name]))[0];
      if (!kept) throw new SvcError('store_unavailable', `the service secret ${name} could not be read back`);
      return openSecret(box, kept.value, `the service secret ${name}`);
    },
  };
}
