// The sliding rate window (spec.md "Rate limits"): requests counted per second over the window,
// as many of `want` granted as fit under the limit. Every store keeps the buckets and asks this.

export interface RateBucket {
  /** The epoch second. */
  sec: number;
  n: number;
}

export interface RateDecision {
  granted: number;
  /** 0 when granted; otherwise the time until enough of the oldest seconds leave the window. */
  retryAfterMs: number;
  /** Buckets at or before this second have left the window and can go. */
  expiredAt: number;
  /** The second to count the granted requests in. */
  sec: number;
}

/** Decides a hit at `now` on the key's buckets (any order, expired ones included). */
export function rateDecision(buckets: readonly RateBucket[], now: string, windowMs: number, limit: number, want: number): RateDecision {
  const sec = Math.floor(Date.parse(now) / 1000);
  const span = Math.ceil(windowMs / 1000);
  const expiredAt = sec - span;
  const live = buckets.filter((b) => b.sec > expiredAt).sort((a, b) => a.sec - b.sec);
  const total = live.reduce((t, b) => t + b.n, 0);
  if (total < limit) return { granted: Math.min(want, limit - total), retryAfterMs: 0, expiredAt, sec };
  let left = total;
  for (const b of live) {
    left -= b.n;
    if (left < limit) return { granted: 0, retryAfterMs: (b.sec + span - sec) * 1000, expiredAt, sec };
  }
  return { granted: 0, retryAfterMs: span * 1000, expiredAt, sec };
}
