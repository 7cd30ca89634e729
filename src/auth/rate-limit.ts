// spec.md "Rate limit": 60 requests per minute per API key on /api/v2, a sliding window, the same on
// every plan (the operator may change the number). The count lives in the store, so it holds across
// daemons on one Postgres. Over it: 429, Retry-After in seconds until a slot frees, no code field.
import { SvcError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { Principal } from './authenticate.js';

export const RATE_WINDOW_MS = 60_000;

export function rateLimiter({ store, clock, config }: Deps) {
  return async (p: Principal): Promise<void> => {
    const r = await store.rateLimit.hit(p.key.id, clock.now().toISOString(), RATE_WINDOW_MS, config.rateLimit);
    if (!r.allowed) {
      throw new SvcError('rate_limited', `rate limit exceeded: ${config.rateLimit} requests per minute per API key`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) },
      });
    }
  };
}
