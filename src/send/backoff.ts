// Back-off per destination: when a destination itself defers (a 421, or a 4xx or no
// answer before any recipient was named), the daemon stops handing it more mail for a while
// instead of hammering it: 30 s, doubling at each deferral, at most 15 minutes, and over at the
// first hand-off it takes. A destination is the recipient domain for direct delivery, or the
// smarthost. Its jobs stay queued and keep their own retry times; the claim leaves them alone while
// the destination is paused. Per daemon, in memory: a restarted daemon tries again at once.
import type { RecipientResult } from './hand-off.js';

export const BACKOFF_FIRST_MS = 30_000;
export const BACKOFF_MAX_MS = 15 * 60_000;
/** The destination of every job when mail goes through a smarthost. */
export const SMARTHOST = '(smarthost)';

/** The reply of a deferral by the destination itself (not by a recipient), or null. */
export function destinationDeferral(results: RecipientResult[]): string | null {
  if (!results.length || results.some((r) => r.outcome === 'sent')) return null;
  const first = results[0]!;
  const early = first.stage === 'connect' || first.stage === 'tls' || first.stage === 'mail';
  const deferred = (r: RecipientResult) =>
    (r.outcome === 'temporary' || r.outcome === 'hop') && (/^421[ -]/.test(r.response) || (early && !/^5\d\d/.test(r.response)));
  return results.every(deferred) ? first.response : null;
}

/**
 * Whether a recorded attempt (the transcript keeps no session stage) was its destination deferring
 * as a whole: a 421, or no answer at all. What `svc messages explain` tells a waiting message.
 */
export function pausedAfter(a: { outcome: string; reply: string; class: string | null }): boolean {
  return (a.outcome === 'temporary' || a.outcome === 'hop') && (/^421[ -]/.test(a.reply) || a.class === 'connection');
}

/** How a pause is said to people. */
export const PAUSE_RULE = `${BACKOFF_FIRST_MS / 1000} s, doubling to at most ${BACKOFF_MAX_MS / 60_000} minutes, until it takes mail again`;

export interface Pause {
  destination: string;
  until: number;
  reply: string;
}

export class DestinationBackoff {
  readonly #paused = new Map<string, { until: number; deferrals: number; reply: string }>();

  constructor(private readonly now: () => number) {}

  /** The destination deferred: paused (longer each time in a row); returns the pause. */
  deferred(destination: string, reply: string): Pause {
    const had = this.#paused.get(destination);
    const deferrals = (had?.deferrals ?? 0) + 1;
    const until = this.now() + Math.min(BACKOFF_FIRST_MS * 2 ** (deferrals - 1), BACKOFF_MAX_MS);
    this.#paused.set(destination, { until, deferrals, reply });
    return { destination, until, reply };
  }

  /** Every pause lifted: an operator asked for the queue to be tried now (after an outage). */
  clear(): void {
    this.#paused.clear();
  }

  /** The destination took mail: no pause. */
  took(destination: string): void {
    this.#paused.delete(destination);
  }

  /** Destinations paused now. A pause that ended stays counted (a deferral right after doubles it) until mail goes through. */
  paused(): string[] {
    const t = this.now();
    return [...this.#paused].filter(([, p]) => p.until > t).map(([d]) => d);
  }
}
