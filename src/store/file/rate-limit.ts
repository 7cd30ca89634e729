// File store: per-key request rates, in memory (one daemon owns a file store; a restart forgets
// at most a second's worth of the window), decided by the model's rate window.
import { rateDecision, type RateBucket } from '../../model/rate-window.js';
import type { RateLimitStore } from '../port/rate-limit.js';

export function fileRateLimit(): RateLimitStore {
  /** API key → its buckets within the window. */
  const hits = new Map<string, RateBucket[]>();
  return {
    hit: async (keyId, now, windowMs, limit, want) => {
      const d = rateDecision(hits.get(keyId) ?? [], now, windowMs, limit, want);
      const buckets = (hits.get(keyId) ?? []).filter((b) => b.sec > d.expiredAt);
      if (d.granted) {
        const b = buckets.find((x) => x.sec === d.sec);
        if (b) b.n += d.granted;
        else buckets.push({ sec: d.sec, n: d.granted });
      }
      if (buckets.length) hits.set(keyId, buckets);
      else hits.delete(keyId);
      return { granted: d.granted, retryAfterMs: d.retryAfterMs };
    },
  };
}
