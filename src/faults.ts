// Faults of the daemon's own that an operator must hear about (issue: visible deferrals): our
// smarthost refusing our login, TLS to it failing. Each is logged when it starts, then at most once
// a minute with how many times it recurred (never a flood), and once when it clears; the current
// ones are shown by GET /healthz.
import type { Clock } from './clock.js';
import type { Log } from './log.js';

export interface Fault {
  /** What failed: `outbound` (the next hop of delivery), ... */
  kind: string;
  detail: string;
  since: string;
  /** Times seen since it started. */
  count: number;
}

const REPEAT_LOG_MS = 60_000;

export class Faults {
  #open = new Map<string, Fault & { loggedAt: number; loggedCount: number }>();

  constructor(
    private readonly log: Log,
    private readonly clock: Clock,
  ) {}

  raise(kind: string, detail: string): void {
    const now = this.clock.now();
    const cur = this.#open.get(kind);
    if (!cur) {
      this.#open.set(kind, { kind, detail, since: now.toISOString(), count: 1, loggedAt: now.getTime(), loggedCount: 1 });
      this.log.error(`${kind}: ${detail}`);
      return;
    }
    cur.count++;
    cur.detail = detail;
    if (now.getTime() - cur.loggedAt >= REPEAT_LOG_MS) {
      this.log.error(`${kind}: ${detail} (${cur.count - cur.loggedCount} more time(s) since the last line, ${cur.count} since ${cur.since})`);
      cur.loggedAt = now.getTime();
      cur.loggedCount = cur.count;
    }
  }

  clear(kind: string): void {
    const cur = this.#open.get(kind);
    if (!cur) return;
    this.#open.delete(kind);
    this.log.info(`${kind}: working again after ${cur.count} failure(s) since ${cur.since}`);
  }

  list(): Fault[] {
    return [...this.#open.values()].map(({ kind, detail, since, count }) => ({ kind, detail, since, count }));
  }
}
