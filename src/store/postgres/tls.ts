// Postgres: the service's STARTTLS identity (one row; the first daemon to save it wins). With the
// operator's key its private key is stored sealed, like the DKIM keys (secret-box.ts).
import type { TlsStore } from '../port/tls.js';
import { openSecret, sealSecret, type SecretBox } from '../secret-box.js';
import type { PgDb } from './db.js';

export function pgTls(db: PgDb, box: SecretBox | null = null): TlsStore {
  const tls: TlsStore = {
    get: async () => {
      const [r] = await db.rows<{ cert: string; key: string; created_at: Date }>(
        `SELECT cert, key, created_at FROM tls_identity WHERE id = 1`,
        [],
      );
      return r ? { cert: r.cert, key: openSecret(box, r.key, 'the STARTTLS private key'), created_at: r.created_at.toISOString() } : null;
    },
    saveIfAbsent: async (t) => {
      await db.rows(`INSERT INTO tls_identity (id, cert, key, created_at) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING`, [
        t.cert,
        sealSecret(box, t.key),
        t.created_at,
      ]);
      return (await tls.get())!;
    },
  };
  return tls;
}
