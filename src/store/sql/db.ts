// The one query source both SQL backends share: each aggregate's operations are written here once
// with Kysely, which speaks SQLite (the embedded store) and Postgres (several daemons on one
// database). Where the dialects really differ (a lock, the database's clock, Postgres's SKIP LOCKED)
// the difference is a member of SqlDb, named, and both sides sit next to each other in the backend
// that provides it.
import { CompiledQuery, sql, type Compilable, type Kysely, type RawBuilder, type Transaction } from '#kysely';
import type { Tables } from './tables.js';
import type { BatchOptions } from './batcher.js';

export type Dialect = 'sqlite' | 'postgres';
export type Q = Kysely<Tables> | Transaction<Tables>;

/**
 * A transaction written once, as a function of the database and plain arguments, that the backend
 * runs where the database is: the embedded daemon sends it to SQLite's thread as one message, so it
 * holds the one writer for its own statements only, never for trips back to a busy event loop
 * between them; elsewhere it runs here. Its arguments and answer cross threads (structured clone),
 * and so do its failures: a Refused comes back as itself, an SvcError as its kind and message.
 * procedures.ts lists them (the thread finds them by name).
 */
export interface Procedure<A, R> {
  readonly name: string;
  run(db: SqlDb, args: A): Promise<R>;
}

export interface SqlDb {
  readonly dialect: Dialect;
  /** Runs a transaction of procedures.ts where the database is (Procedure). */
  procedure<A, R>(p: Procedure<A, R>, args: A): Promise<R>;
  /** Runs queries on the store: counted so that close() lets them finish, errors mapped to SvcError. */
  run<T>(fn: (q: Kysely<Tables>) => Promise<T>): Promise<T>;
  /** Runs `fn` in one transaction; an error rolls it back and comes out mapped. */
  tx<T>(fn: (q: Transaction<Tables>) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction, makes the callers that name the same `key` take turns until it ends
   * (Postgres: an advisory lock; SQLite: a no-op, its one writer already takes turns).
   */
  lockKey(q: Transaction<Tables>, key: string): Promise<void>;
  /** The database's clock as an ISO timestamp, the one clock every daemon on a shared store agrees on. */
  now(): RawBuilder<string>;
  /** `ms` after the database's now (a lease's end). */
  later(ms: number): RawBuilder<string>;
  /**
   * Lets this transaction's commit return before it reaches the disk, for a write whose loss in a
   * crash loses nothing that was stored after it (a claim, a rate count). Postgres:
   * synchronous_commit off for the transaction; SQLite: nothing (its commits are cheap in WAL).
   */
  relaxCommit(q: Transaction<Tables>): Promise<void>;
  /**
   * How group commits batch on this database (batcher.ts): two in flight on both (Postgres overlaps
   * their round trips; SQLite's thread has the next procedure queued when one commits), and SQLite
   * gathers a turn's calls.
   */
  readonly batching: BatchOptions;
  /**
   * The database keeps counts of messages (per workspace and status) and subscribers (per list
   * and status) beside them, by triggers (SQLite: its one writer makes a count row nobody's wait);
   * without them a total is counted (Postgres: a count row would queue every daemon's writes).
   */
  readonly keepsCounts: boolean;
  /** Rows read in a transaction stay as read until it ends (Postgres: FOR UPDATE; SQLite: its one writer already does). */
  readonly locksRows: boolean;
  /**
   * A failure after which a transaction may have committed all the same (Postgres: no answer came;
   * SQLite: never, its commit returns or fails in this process).
   */
  outcomeUnknown(e: unknown): boolean;
}

/** A timestamp as it comes back (Postgres: a Date; SQLite: the ISO text it was given). */
export const iso = (v: Date | string): string => (typeof v === 'string' ? v : v.toISOString());
export const isoOrNull = (v: Date | string | null): string | null => (v === null ? null : iso(v));
/** A JSON column as it comes back (Postgres: parsed; SQLite: text). */
export const fromJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
/** A boolean column as it comes back (Postgres: a boolean; SQLite: 0 or 1). */
export const bool = (v: boolean | number): boolean => v === true || v === 1;
/** A boolean to store: 1 or 0, which both take (Postgres reads '1' as true; SQLite binds no booleans). */
export const flag = (b: boolean): number => (b ? 1 : 0);

/** The right side of a LIKE that finds `text` anywhere, case-insensitively (the left side lower-cased). */
export const containing = (text: string): RawBuilder<string> =>
  sql<string>`${`%${text.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`} escape '\\'`;

/**
 * Marks a write whose result nobody reads: where statements travel to another thread (the
 * embedded daemon's writer thread) it goes with the next statement that is read, so a transaction
 * costs a few trips rather than one a statement; elsewhere it runs at once. A failure of it fails
 * the transaction all the same.
 */
export const DEFERRED = '/* deferred */ ';

/** Runs `query` in `q` as a deferred write (DEFERRED). */
export async function deferred(q: Q, query: Compilable): Promise<void> {
  const c = query.compile();
  await q.executeQuery(CompiledQuery.raw(DEFERRED + c.sql, [...c.parameters]));
}

/** `column` (or an expression) starts with `prefix` (a short id on the command line): text, never a pattern. */
export const startsWith = (column: string | RawBuilder<string>, prefix: string): RawBuilder<boolean> =>
  sql<boolean>`substr(${typeof column === 'string' ? sql.ref(column) : column}, 1, ${prefix.length}) = ${prefix}`;

/** Up to `limit` ids of the workspace's rows of `table` that start with `prefix` (a short id on the command line). */
export async function idsStartingWith(
  db: SqlDb,
  table: 'messages' | 'webhook_attempts',
  workspaceId: string,
  prefix: string,
  limit: number,
): Promise<string[]> {
  const rows = await db.run((q) =>
    q.selectFrom(table).select('id').where('workspace_id', '=', workspaceId).where(startsWith('id', prefix)).limit(limit).execute(),
  );
  return rows.map((r) => r.id);
}

/** What a count kept by the database says (keepsCounts): its rows for `of` (and `status`) summed, 0 when it has none. */
export async function keptCount(
  q: Q,
  table: 'message_counts' | 'subscriber_counts',
  of: { workspace_id: string } | { list_id: string },
  status?: string,
): Promise<number> {
  const [column, value] = Object.entries(of)[0]!;
  const r = await sql<{ n: number | string | null }>`SELECT sum(n) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${value}${
    status ? sql` AND status = ${status}` : sql``
  }`.execute(q);
  return Number(r.rows[0]?.n ?? 0);
}
