// The pg pool and the connection settings every connection of svc uses (the pool, the cache's
// LISTEN connection).
import { userInfo } from 'node:os';
import pg from 'pg';
import type { Log } from '../../log.js';
import type { PostgresLocation } from '../location.js';

/**
 * Like libpq: a URL without a user connects as PGUSER, else as the operating-system user (pg would
 * send no user at all when $USER is unset, as it is under some service managers).
 */
function withDefaultUser(url: string): string {
  const u = new URL(url);
  if (u.username) return url;
  let user = process.env.PGUSER;
  try {
    user ||= userInfo().username;
  } catch {
    return url;
  }
  u.username = encodeURIComponent(user);
  return u.toString();
}

export function connectionConfig(loc: PostgresLocation): pg.ClientConfig {
  return {
    connectionString: withDefaultUser(loc.url),
    connectionTimeoutMillis: loc.connectTimeoutMs,
    keepAlive: true,
    ...(loc.schema ? { options: `-c search_path=${loc.schema}` } : {}),
  };
}

export function createPool(loc: PostgresLocation, log: Log): pg.Pool {
  const pool = new pg.Pool({
    ...connectionConfig(loc),
    max: loc.poolSize,
    statement_timeout: loc.statementTimeoutMs,
    // A server that stops answering mid-query (network cut) must not hang a request for ever.
    query_timeout: loc.statementTimeoutMs + 1_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that dies (server restart) is reported here; without a handler it would
  // end the process. The pool replaces it on the next checkout.
  pool.on('error', (e) => log.warn(`postgres: idle connection lost (${e.message})`));
  return pool;
}
