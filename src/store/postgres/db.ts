// Postgres plumbing the aggregates share: queries on the pool (each mapped to the store's errors,
// counted so close() lets them finish), transactions, and for the look-ups every request makes
// (keys, domains, addresses) a cache that LISTEN/NOTIFY keeps honest across daemons.
import type pg from 'pg';
import type { LookupCache } from './lookup-cache.js';
import type { SecretBox } from '../secret-box.js';

export interface PgDb {
  rows<R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string): Promise<R[]>;
  /** Runs `fn` in one transaction on one connection; errors roll back and come out mapped. */
  tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T>;
}

/** What the sender look-ups add: the daemon's cache (null in admin commands) and its invalidation. */
export interface PgLookups extends PgDb {
  readonly cache: LookupCache | null;
  /** A cached look-up, or the store's answer, kept unless something changed meanwhile. */
  cached<T>(key: string, read: () => Promise<T>, copy?: (v: T) => T): Promise<T>;
  /** A write that changes cached look-ups (domains, addresses, a plan, a deletion): every daemon's cached entries go, this one's when it returns. */
  lookupWrite<T>(write: () => Promise<T>): Promise<T>;
  /** A transaction that writes domains or addresses, announcing it at commit. */
  senderTx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T>;
  /** Seals DKIM private keys at rest when the operator gave a key (secrets.ts). */
  readonly box: SecretBox | null;
}

/** A record as Postgres returns its row: these fields, ISO strings in the record, come back as Dates. */
export type Row<T, Dates extends keyof T> = Omit<T, Dates> & { [K in Dates]: null extends T[K] ? Date | null : Date };

export const iso = (d: Date | null) => (d === null ? null : d.toISOString());
