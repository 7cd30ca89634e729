// Postgres: per-key request rates, in one function call (svc_rate_hit, migration 0006).
import type { RateLimitStore } from '../port/rate-limit.js';
import type { PgDb } from './db.js';

export function pgRateLimit(db: PgDb): RateLimitStore {
  return {
    hit: async (keyId, now, windowMs, limit, want) => {
      const [r] = await db.rows<{ granted: number; retry_after_ms: string }>(
        `SELECT * FROM svc_rate_hit($1, $2, $3, $4, $5)`,
        [keyId, now, windowMs, limit, want],
        'rate_hit',
      );
      return { granted: r!.granted, retryAfterMs: Number(r!.retry_after_ms) };
    },
  };
}
