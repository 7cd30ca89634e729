// Versioned SQL migrations (migrations/NNNN_name.sql), applied in order, each in its own
// transaction, recorded in svc_migrations. A session advisory lock per schema makes two processes
// migrating at once take turns instead of colliding.
import { readdir, readFile } from 'node:fs/promises';
import type { ClientBase, Pool } from 'pg';
import { SvcError } from '../../errors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
const migrationsDir = new URL('./migrations/', import.meta.url);

let cached: Promise<Migration[]> | undefined;

export function loadMigrations(): Promise<Migration[]> {
  cached ??= (async () => {
    const names = (await readdir(migrationsDir)).filter((n) => FILE.test(n)).sort();
    const out: Migration[] = [];
    for (const n of names) {
      const m = FILE.exec(n)!;
      out.push({ version: Number(m[1]), name: `${m[1]}_${m[2]}`, sql: await readFile(new URL(n, migrationsDir), 'utf8') });
    }
    out.forEach((m, i) => {
      if (m.version !== i + 1) throw new Error(`migration ${m.name} is out of sequence`);
    });
    return out;
  })();
  return cached;
}

export async function latestVersion(): Promise<number> {
  return (await loadMigrations()).length;
}

/** The schema's applied version; 0 for a database svc has never touched. */
export async function schemaVersion(db: Pick<ClientBase, 'query'>): Promise<number> {
  const exists = await db.query<{ t: string | null }>(`SELECT to_regclass('svc_migrations')::text AS t`);
  if (!exists.rows[0]?.t) return 0;
  const r = await db.query<{ v: number | null }>('SELECT max(version)::int AS v FROM svc_migrations');
  return r.rows[0]?.v ?? 0;
}

const lockKey = (schema: string | undefined) => [`svc_migrations:${schema ?? ''}`];

/**
 * The schema's version once no migration is running: another process may be setting up an empty
 * database right now, half way through, so a schema that looks behind is read again under the lock.
 */
export async function settledSchemaVersion(pool: Pool, schema: string | undefined): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext($1))`, lockKey(schema));
    try {
      return await schemaVersion(client);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext($1))`, lockKey(schema)).catch(() => {});
    }
  } finally {
    client.release();
  }
}

/** Throws the error that names `svc migrate` unless the schema is exactly what this build needs. */
export async function assertSchemaCurrent(db: Pick<ClientBase, 'query'>, version?: number): Promise<void> {
  const [have, want] = [version ?? (await schemaVersion(db)), await latestVersion()];
  if (have < want) {
    throw new SvcError(
      'schema_behind',
      `postgres schema is at version ${have}, this svc needs ${want}: run \`svc migrate\` (or start with \`svc serve --migrate\`)`,
    );
  }
  if (have > want)
    throw new SvcError('schema_behind', `postgres schema is at version ${have}, newer than this svc knows (${want}): upgrade svc`);
}

export interface MigrateResult {
  from: number;
  version: number;
  applied: string[];
}

/** Applies the migrations after the schema's version, up to `upTo` (all of them by default). */
export async function migrate(pool: Pool, schema: string | undefined, upTo = Infinity): Promise<MigrateResult> {
  const migrations = (await loadMigrations()).filter((m) => m.version <= upTo);
  const client = await pool.connect();
  try {
    // Lock first: CREATE SCHEMA IF NOT EXISTS itself races when two processes run it at once.
    const key = lockKey(schema);
    await client.query(`SELECT pg_advisory_lock(hashtext($1))`, key);
    try {
      if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS svc_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const from = await schemaVersion(client);
      // A schema a newer svc wrote is never "up to date" for this one: the daemon would refuse it.
      const newest = migrations.at(-1)?.version ?? 0;
      if (upTo === Infinity && from > newest)
        throw new SvcError(
          'schema_behind',
          `postgres schema is at version ${from}, newer than this svc knows (${newest}): upgrade svc; nothing was changed`,
        );
      const applied: string[] = [];
      for (const m of migrations.filter((x) => x.version > from)) {
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO svc_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => {});
          throw new SvcError('internal', `migration ${m.name} failed: ${(e as Error).message}`, { cause: e });
        }
        applied.push(m.name);
      }
      return { from, version: Math.max(from, migrations.length), applied };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext($1))`, key).catch(() => {});
    }
  } finally {
    client.release();
  }
}
