// Faults of the daemon's own that an operator must hear about (issue: visible deferrals): our
// smarthost refusing our login, TLS to it failing. Each is logged when it starts, then at most once in
// 10 s with how many times it recurred (never a flood), and once when it clears; the current
// ones are shown by GET /healthz.
import type { Clock } from './clock.js';
import type { Log } from './log.js';
import { LineThrottle } from './line-throttle.js';

export interface Fault {
  /** What failed: `outbound` (the next hop of delivery), ... */
  kind: string;
  detail: string;
  since: string;
  /** Times seen since it started. */
  count: number;
}

const REPEAT_LOG_MS = 10_000;

export class Faults {
  #open = new Map<string, Fault>();
  readonly #throttle = new LineThrottle(REPEAT_LOG_MS);

  constructor(
    private readonly log: Log,
    private readonly clock: Clock,
  ) {}

  raise(kind: string, detail: string): void {
    const now = this.clock.now();
    let cur = this.#open.get(kind);
    if (cur) {
      cur.count++;
      cur.detail = detail;
    } else {
      this.#open.set(kind, (cur = { kind, detail, since: now.toISOString(), count: 1 }));
    }
    const held = this.#throttle.pass(kind, now.getTime());
    if (held === null) return;
    this.log.error(
      cur.count === 1
        ? `${kind}: ${detail}`
        : `${kind}: ${detail} (${held + 1} more time(s) since the last line, ${cur.count} since ${cur.since})`,
    );
  }

  clear(kind: string): void {
    const cur = this.#open.get(kind);
    if (!cur) return;
    this.#open.delete(kind);
    this.#throttle.forget(kind);
    this.log.info(`${kind}: working again after ${cur.count} failure(s) since ${cur.since}`);
  }

  list(): Fault[] {
    return [...this.#open.values()].map(({ kind, detail, since, count }) => ({ kind, detail, since, count }));
  }
}
