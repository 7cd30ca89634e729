// Retries of a failed webhook (spec.md: "not shown"; chosen after the senders people trust): nine
// attempts over about a day and a half, each wait stretched or shrunk by up to 20% at random so
// that a receiver coming back is not hit by every retry at once.
import type { Random } from '../clock.js';

/** Waits after the 1st, 2nd, ... failed attempt; after the last one the delivery has failed. */
export const RETRY_DELAYS_MS = [5_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 14 * 3_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An endpoint that has failed every attempt for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 86_400_000;

/** When to try again after `attempts` failed attempts, or null when none is left. */
export function nextAttempt(attempts: number, now: Date, random: Random): Date | null {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return null;
  const jitter = 0.8 + (random.bytes(2).readUInt16BE(0) / 65_535) * 0.4;
  return new Date(now.getTime() + Math.round(base * jitter));
}
