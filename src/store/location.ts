// src/store/: the store: its ports (port/, one per aggregate; types.ts is their index) and two
// backends (file/, postgres/), each one file per aggregate.
//
// Where a store lives (--store): a directory, or a Postgres database and schema.
export interface PostgresLocation {
  kind: 'postgres';
  /** The connection URL as given, minus our own `schema` parameter. */
  url: string;
  /** `?schema=NAME`: the schema svc's tables live in (default: the connection's search_path). */
  schema: string | undefined;
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** Encrypts DKIM private keys at rest (SVC_ENCRYPTION_KEY, --encryption-key-file). */
  encryptionKey?: Buffer;
  /**
   * How long a send whose statement got no answer keeps asking whether it was queued, by where it
   * came from (sql/messages.ts; defaults FENCE_WINDOW_MS and RELAY_FENCE_WINDOW_MS, shorter in tests).
   */
  fenceMs?: { api: number; relay: number };
}

/**
 * A file store's data file: a directory holding it is a store (commands that must not make one
 * look for it). Here, beside the location, so that finding a store loads none of the file store.
 */
export const DATA_FILE = 'svc.json';

export type StoreLocation =
  { kind: 'file'; dir: string; /** Encrypts DKIM private keys in svc.json. */ encryptionKey?: Buffer } | PostgresLocation;

/** A store location for logs and errors: never a password. */
export function describeStore(loc: StoreLocation): string {
  if (loc.kind === 'file') return `file:${loc.dir}`;
  const u = new URL(loc.url);
  if (u.password) u.password = '***';
  return u.toString() + (loc.schema ? ` (schema ${loc.schema})` : '');
}
