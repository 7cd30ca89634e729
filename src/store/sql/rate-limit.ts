// Per-key request rates: the key's per-second buckets, decided by the model's rate window
// (model/rate-window.ts) in one transaction that holds the key, so that the daemons sharing a
// store count every request once.
import { rateDecision } from '../../model/rate-window.js';
import type { RateLimitStore } from '../port/rate-limit.js';
import type { SqlDb } from './db.js';

export function sqlRateLimit(db: SqlDb): RateLimitStore {
  return {
    hit: (keyId, now, windowMs, limit, want) =>
      db.tx(async (q) => {
        await db.lockKey(q, `svc_rate:${keyId}`);
        const buckets = await q.selectFrom('rate_buckets').select(['sec', 'n']).where('key_id', '=', keyId).execute();
        const d = rateDecision(
          buckets.map((b) => ({ sec: Number(b.sec), n: b.n })),
          now,
          windowMs,
          limit,
          want,
        );
        if (buckets.some((b) => Number(b.sec) <= d.expiredAt))
          await q.deleteFrom('rate_buckets').where('key_id', '=', keyId).where('sec', '<=', d.expiredAt).execute();
        if (d.granted)
          await q
            .insertInto('rate_buckets')
            .values({ key_id: keyId, sec: d.sec, n: d.granted })
            .onConflict((c) =>
              c.columns(['key_id', 'sec']).doUpdateSet((e) => ({ n: e(e.ref('rate_buckets.n'), '+', e.ref('excluded.n')) })),
            )
            .execute();
        return { granted: d.granted, retryAfterMs: d.retryAfterMs };
      }),
  };
}
