// How fast the MX takes mail from one sender and into one workspace (messages per minute). The MX is
// open to anyone: without this, one client sending 31-byte messages at 4,300 a second filled a
// workspace with hundreds of thousands of items in minutes while using 1 % of its storage. Past a
// limit the MX answers 451 4.7.1 (the sender's server keeps the mail and tries again later, as it
// does for greylisting), so nothing is lost and a flood is slowed to the limit.
//
// A sender is the envelope's MAIL FROM address; the null sender (<>) of bounces and reports is
// counted per client IP instead, so that many servers' bounces never share one count. The counts
// are this daemon's (kept in memory; daemons on one Postgres each count their own): a sliding
// window approximated by two fixed minutes, the previous one weighted by how much of it is still in
// the window, as Cloudflare and nginx do. The previous minute's share is rounded up: just past a
// minute's turn, messages sent a moment before it still count whole (unrounded, 3 sent in the last
// second of a minute counted 2.99 and let a fourth through at once). Memory is bounded: at most
// MAX_KEYS keys are counted; past it the oldest minute's keys are forgotten first.

const WINDOW_MS = 60_000;
const MAX_KEYS = 100_000;

interface Count {
  minute: number;
  current: number;
  previous: number;
}

class SlidingCounts {
  #counts = new Map<string, Count>();

  constructor(private readonly limit: number) {}

  #count(key: string, now: number): Count {
    const minute = Math.floor(now / WINDOW_MS);
    let c = this.#counts.get(key);
    if (!c) {
      if (this.#counts.size >= MAX_KEYS) this.#forgetOldest();
      this.#counts.set(key, (c = { minute, current: 0, previous: 0 }));
    } else if (c.minute !== minute) {
      c.previous = c.minute === minute - 1 ? c.current : 0;
      c.current = 0;
      c.minute = minute;
    }
    return c;
  }

  /** The messages counted in the last minute (estimated), before this one. */
  #used(c: Count, now: number): number {
    const into = (now % WINDOW_MS) / WINDOW_MS;
    return c.current + Math.ceil(c.previous * (1 - into));
  }

  full(key: string, now: number): boolean {
    return this.#used(this.#count(key, now), now) >= this.limit;
  }

  add(key: string, now: number): void {
    this.#count(key, now).current++;
  }

  /** Takes back one `add` of this minute (a message that was counted but not stored). */
  remove(key: string, now: number): void {
    const c = this.#count(key, now);
    if (c.current > 0) c.current--;
  }

  /** Drops the keys of the oldest minute (Map keeps insertion order; a key counted again keeps its place: good enough to stay bounded). */
  #forgetOldest(): void {
    let n = 0;
    for (const key of this.#counts.keys()) {
      this.#counts.delete(key);
      if (++n >= MAX_KEYS / 10) break;
    }
  }

  get size(): number {
    return this.#counts.size;
  }
}

export interface MxRateLimits {
  /** Messages per minute from one sender (0: no limit). */
  perSender: number;
  /** Messages per minute into one workspace (0: no limit). */
  perWorkspace: number;
}

export function mxRate(limits: MxRateLimits, now: () => number = Date.now) {
  const senders = limits.perSender ? new SlidingCounts(limits.perSender) : null;
  const workspaces = limits.perWorkspace ? new SlidingCounts(limits.perWorkspace) : null;
  const senderKey = (mailFrom: string, ip: string | null) => (mailFrom ? `from:${mailFrom.toLowerCase()}` : `ip:${ip ?? '-'}`);
  return {
    /** Whether this sender has sent its minute's worth (checked at MAIL FROM). */
    senderFull: (mailFrom: string, ip: string | null) => senders?.full(senderKey(mailFrom, ip), now()) ?? false,
    /** Whether this workspace has taken its minute's worth (checked at RCPT). */
    workspaceFull: (workspaceId: string) => workspaces?.full(workspaceId, now()) ?? false,
    /**
     * One message from this sender into these workspaces, counted before it is stored, so that
     * sessions storing at once cannot each find room under the limit (seen: 3,017 of 3,000); false,
     * counting nothing, when the sender or a workspace has had its minute's worth.
     */
    take(mailFrom: string, ip: string | null, workspaceIds: readonly string[]): boolean {
      const t = now();
      const sender = senderKey(mailFrom, ip);
      if (senders?.full(sender, t) || (workspaces && workspaceIds.some((w) => workspaces.full(w, t)))) return false;
      senders?.add(sender, t);
      if (workspaces) for (const w of workspaceIds) workspaces.add(w, t);
      return true;
    },
    /** A message `take` counted and the store did not keep: not counted after all. */
    giveBack(mailFrom: string, ip: string | null, workspaceIds: readonly string[]): void {
      const t = now();
      senders?.remove(senderKey(mailFrom, ip), t);
      if (workspaces) for (const w of workspaceIds) workspaces.remove(w, t);
    },
    /** Keys counted (for tests and stats). */
    size: () => (senders?.size ?? 0) + (workspaces?.size ?? 0),
  };
}

export type MxRate = ReturnType<typeof mxRate>;
