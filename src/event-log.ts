// One structured line per operational event (a delivery outcome, a failed webhook attempt, a
// refused relay login, a store outage), at a rate that cannot flood: the first event of a kind in
// a minute is written at once; the others of that kind in the same minute are only counted, and
// the next line of the kind says how many there were. Fields are key=value, values quoted when
// they hold spaces, so the lines can be grepped and parsed.
import type { Clock } from './clock.js';
import type { Log } from './log.js';
import { LineThrottle } from './line-throttle.js';

const WINDOW_MS = 60_000;

const value = (v: unknown) => {
  const s = String(v ?? '').replace(/[\r\n]+/g, ' ').slice(0, 300);
  return /[\s"=]/.test(s) || s === '' ? JSON.stringify(s) : s;
};

export class EventLog {
  readonly #throttle = new LineThrottle(WINDOW_MS);

  constructor(
    private readonly log: Log,
    private readonly clock: Clock,
  ) {}

  /**
   * `kind` groups events for the rate limit (e.g. `delivery sent`, `relay login-refused`);
   * `fields` are written as key=value.
   */
  event(level: 'info' | 'warn' | 'error', kind: string, fields: Record<string, unknown>): void {
    const held = this.#throttle.pass(kind, this.clock.now().getTime());
    if (held === null) return;
    const line = Object.entries(fields)
      .map(([k, v]) => `${k}=${value(v)}`)
      .join(' ');
    this.log[level](`${kind} ${line}${held ? ` (and ${held} more like it in the minute before)` : ''}`);
  }
}
