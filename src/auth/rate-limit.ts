// spec.md "Rate limit": 60 requests per minute per API key on /api/v2, a sliding window, the same on
// every plan (the operator may change the number). The count lives in the store, so it holds across
// daemons on one Postgres. Over it: 429, Retry-After in seconds until a slot frees, no code field.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Principal } from './authenticate.js';

export const RATE_WINDOW_MS = 60_000;

/**
 * With a high limit a daemon takes slots from the store in blocks (a hundredth of the limit, used
 * within a second): one store call serves many requests, and since unused slots stay counted the
 * limit still holds across daemons (never more, at most a block less). At the spec's 60 a minute
 * the block is one slot: every request is counted in the store.
 */
const LEASE_MS = 1000;

export function rateLimiter({ store, clock, config }: DepsOf<'rateLimit'>) {
  const leases = new Map<string, { left: number; until: number }>();
  // One block request per key at a time: requests that find the block empty wait for it.
  const fetching = new Map<string, Promise<void>>();
  const block = Math.max(1, Math.floor(config.rateLimit / 100));
  const take = (keyId: string, now: number) => {
    const lease = leases.get(keyId);
    if (lease && lease.left > 0 && lease.until > now) {
      lease.left--;
      return true;
    }
    return false;
  };
  return async (p: Principal): Promise<void> => {
    if (block > 1) {
      while (!take(p.key.id, clock.now().getTime())) {
        const pending = fetching.get(p.key.id);
        if (!pending) break;
        await pending;
      }
      if (take(p.key.id, clock.now().getTime())) return;
    }
    const now = clock.now();
    const call = store.rateLimit.hit(p.key.id, now.toISOString(), RATE_WINDOW_MS, config.rateLimit, block);
    if (block > 1)
      fetching.set(
        p.key.id,
        call.then(
          () => {},
          () => {},
        ),
      );
    let r;
    try {
      r = await call;
    } finally {
      fetching.delete(p.key.id);
    }
    if (r.granted > 1) leases.set(p.key.id, { left: r.granted - 1, until: now.getTime() + LEASE_MS });
    else leases.delete(p.key.id);
    if (r.granted === 0) {
      throw new SvcError('rate_limited', `rate limit exceeded: ${config.rateLimit} requests per minute per API key`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))) },
      });
    }
  };
}
