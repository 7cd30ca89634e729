// Per-key request rate (spec.md "Rate limits").
export interface RateLimitStore {
  /**
   * Counts up to `want` requests in the key's sliding window, as many as fit under `limit`;
   * `granted` 0 means refused, with the time until a slot frees.
   */
  hit(keyId: string, now: string, windowMs: number, limit: number, want: number): Promise<{ granted: number; retryAfterMs: number }>;
}
