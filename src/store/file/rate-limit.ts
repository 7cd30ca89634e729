// File store: per-key request rates, in memory (one daemon owns a file store; a restart forgets
// at most a second's worth of the window).
import type { RateLimitStore } from '../port/rate-limit.js';

/** Milliseconds until enough of the oldest seconds leave the window for one more request. */
function retryAfter(buckets: Map<number, number>, total: number, limit: number, sec: number, span: number): number {
  let left = total;
  for (const s of [...buckets.keys()].sort((a, b) => a - b)) {
    left -= buckets.get(s)!;
    if (left < limit) return (s + span - sec) * 1000;
  }
  return span * 1000;
}

export function fileRateLimit(): RateLimitStore {
  /** API key → requests per second (epoch second → count) within the window: O(window) per hit, whatever the limit. */
  const hits = new Map<string, Map<number, number>>();
  return {
    hit: async (keyId, now, windowMs, limit, want) => {
      const sec = Math.floor(Date.parse(now) / 1000);
      const span = Math.ceil(windowMs / 1000);
      let buckets = hits.get(keyId);
      if (!buckets) hits.set(keyId, (buckets = new Map()));
      let total = 0;
      for (const [s, n] of buckets) {
        if (s <= sec - span) buckets.delete(s);
        else total += n;
      }
      if (total >= limit) return { granted: 0, retryAfterMs: retryAfter(buckets, total, limit, sec, span) };
      const granted = Math.min(want, limit - total);
      buckets.set(sec, (buckets.get(sec) ?? 0) + granted);
      return { granted, retryAfterMs: 0 };
    },
  };
}
