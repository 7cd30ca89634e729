// One structured line per operational event (a delivery outcome, a failed webhook attempt, a
// refused relay login, a store outage), at a rate that cannot flood: the first event of a kind in
// a minute is written at once; the others of that kind in the same minute are only counted, and
// the next line of the kind says how many there were. Fields are key=value, values quoted when
// they hold spaces, so the lines can be grepped and parsed.
import type { Clock } from './clock.js';
import type { Log } from './log.js';

const WINDOW_MS = 60_000;
/** Kinds remembered at most (the oldest forgotten first), so that keys from input cannot grow it. */
const MAX_KINDS = 1000;

const value = (v: unknown) => {
  const s = String(v ?? '').replace(/[\r\n]+/g, ' ').slice(0, 300);
  return /[\s"=]/.test(s) || s === '' ? JSON.stringify(s) : s;
};

export class EventLog {
  #kinds = new Map<string, { at: number; held: number }>();

  constructor(
    private readonly log: Log,
    private readonly clock: Clock,
  ) {}

  /**
   * `kind` groups events for the rate limit (e.g. `delivery sent`, `relay login-refused`);
   * `fields` are written as key=value.
   */
  event(level: 'info' | 'warn' | 'error', kind: string, fields: Record<string, unknown>): void {
    const now = this.clock.now().getTime();
    const cur = this.#kinds.get(kind);
    if (cur && now - cur.at < WINDOW_MS && now >= cur.at) {
      cur.held++;
      return;
    }
    const held = cur?.held ?? 0;
    this.#kinds.delete(kind);
    this.#kinds.set(kind, { at: now, held: 0 });
    while (this.#kinds.size > MAX_KINDS) this.#kinds.delete(this.#kinds.keys().next().value!);
    const line = Object.entries(fields)
      .map(([k, v]) => `${k}=${value(v)}`)
      .join(' ');
    this.log[level](`${kind} ${line}${held ? ` (and ${held} more like it in the minute before)` : ''}`);
  }
}
