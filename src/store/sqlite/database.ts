// The embedded store's SQLite database (svc.db beside svc.json): opened with better-sqlite3 in WAL
// mode with synchronous=FULL (a commit is on disk before it returns), foreign keys on and a busy
// timeout, so that an admin command can write beside the daemon. Its schema is the numbered files
// of schema/, applied in order and counted in PRAGMA user_version.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type SqliteDatabase, type SqliteStatement } from '#kysely';
import { SvcError } from '../../errors.js';
import type { SqlDb } from '../sql/db.js';
import type { Tables } from '../sql/tables.js';
import { mapSqliteError } from './errors.js';
import { writerDialect } from './writer.js';

export const DB_FILE = 'svc.db';

/** How long a write waits for another process's transaction before the store answers 503. */
const BUSY_TIMEOUT_MS = 5_000;

const SCHEMA_DIR = fileURLToPath(new URL('./schema/', import.meta.url));

/** The schema files in order: `0001_data.sql` is version 1. */
function schemaFiles(): Array<{ version: number; sql: string }> {
  return readdirSync(SCHEMA_DIR)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), sql: readFileSync(join(SCHEMA_DIR, f), 'utf8') }));
}

/** The schema version a database is at, and the one this build writes. */
export function schemaVersion(raw: Database.Database): { have: number; want: number } {
  return { have: raw.pragma('user_version', { simple: true }) as number, want: schemaFiles().at(-1)?.version ?? 0 };
}

/** The SQLite library better-sqlite3 was built with. */
export function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

export interface SqliteFile {
  readonly raw: Database.Database;
  readonly db: SqlDb;
  close(): Promise<void>;
}

/**
 * Opens (and makes, or brings up to date) the database in `dir`. A database written by a newer
 * build is refused: this one would not know its tables. `thread`: the queries run in a thread of
 * their own (the daemon: writer.ts); without it on this one (an admin command).
 */
export function openSqlite(dir: string, opts: { thread?: boolean } = {}): SqliteFile {
  let raw: Database.Database;
  try {
    raw = new Database(join(dir, DB_FILE));
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = FULL');
    raw.pragma('foreign_keys = ON');
    raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (e) {
    throw mapSqliteError(e);
  }
  const files = schemaFiles();
  const latest = files.at(-1)?.version ?? 0;
  const version = raw.pragma('user_version', { simple: true }) as number;
  if (version > latest) {
    raw.close();
    throw new SvcError(
      'store_corrupt',
      `${join(dir, DB_FILE)} is at schema version ${version}, newer than this svc knows (${latest}): upgrade svc`,
    );
  }
  if (version < latest) {
    raw
      .transaction(() => {
        for (const f of files) if (f.version > version) raw.exec(f.sql);
        raw.pragma(`user_version = ${latest}`);
      })
      .immediate();
  }
  if (!opts.thread) return { raw, db: sqlDb(inThread(raw)), close: async () => void raw.close() };
  const writer = writerDialect(join(dir, DB_FILE), BUSY_TIMEOUT_MS);
  const k = new Kysely<Tables>({ dialect: writer.dialect });
  return {
    raw,
    db: sqlDb(k, writer.procedure),
    close: async () => {
      await k.destroy();
      await writer.stop();
      raw.close();
    },
  };
}

/**
 * The statements of one connection, as Kysely (this thread's) and the writer thread run them:
 * prepared once and kept; a transaction's BEGIN made IMMEDIATE (it takes the write lock at its
 * start, so that two processes never both read and then fail to upgrade); a ROLLBACK with no
 * transaction open does nothing (a failed COMMIT, a full disk, rolled back already: a ROLLBACK then
 * would fail and hide the failure that matters).
 */
export function preparer(raw: Database.Database): (text: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>();
  const rollback = raw.prepare('rollback');
  const rollbackIfOpen = {
    reader: false,
    run: () => (raw.inTransaction ? rollback.run() : { changes: 0, lastInsertRowid: 0 }),
  } as unknown as Database.Statement;
  return (text) => {
    if (text === 'rollback') return rollbackIfOpen;
    const q = text === 'begin' ? 'begin immediate' : text;
    let s = prepared.get(q);
    if (!s) {
      // IN lists of every length make new texts: the cache is emptied rather than let grow.
      if (prepared.size >= 1_000) prepared.clear();
      s = raw.prepare(q);
      prepared.set(q, s);
    }
    return s;
  };
}

/** Kysely on a connection of this thread, through `prepare` (preparer above). */
function inThread(raw: Database.Database, prepare = preparer(raw)): Kysely<Tables> {
  const database: SqliteDatabase = {
    close: () => raw.close(),
    prepare: (text: string) => prepare(text) as unknown as SqliteStatement,
  };
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
}

/** The shared query source on the writer thread's own connection, where procedures run (writer-thread.ts). */
export const threadDb = (raw: Database.Database, prepare: ReturnType<typeof preparer>): SqlDb => sqlDb(inThread(raw, prepare));

/**
 * The shared query source on this database, with SQLite's side of each dialect difference.
 * `procedure`: where procedures run (the writer thread); without it, here.
 */
function sqlDb(k: Kysely<Tables>, procedure?: (name: string, args: unknown) => Promise<unknown>): SqlDb {
  const mapped = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw mapSqliteError(e);
    }
  };
  const db: SqlDb = {
    dialect: 'sqlite',
    procedure: (p, args) => (procedure ? mapped(() => procedure(p.name, args) as Promise<never>) : p.run(db, args)),
    run: (fn) => mapped(() => fn(k)),
    tx: (fn) => mapped(() => k.transaction().execute(fn)),
    lockKey: async () => {},
    now: () => sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
    outcomeUnknown: () => false,
    later: (ms) => sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`${ms / 1000} seconds`})`,
    locksRows: false,
    keepsCounts: true,
    batching: { parallel: 2, gather: true },
    relaxCommit: async () => {},
  };
  return db;
}
