// The mail log (docs/operating.md "The log"): one structured line per event of mail and its neighbours (a
// delivery attempt, an MX verdict, a relay session, a webhook attempt, a refused login), as the
// event's name and its fields, so lines can be grepped (text) or parsed (JSON). What happens to
// mail is `info` and is never held back; our own faults are `warn`/`error`, and the daemon's log
// (daemon/log.ts) holds their repeats back. Listeners (the daemon's metrics) hear every event, and
// the tallies that are counted but never written (a send accepted).
import type { Log } from './log.js';

export type EventListener = (kind: string, fields: Record<string, unknown>) => void;

export class EventLog {
  readonly #listeners = new Set<EventListener>();

  constructor(private readonly log: Log) {}

  /** `kind` names the event (`delivery`, `mx refused`, `relay login-refused`); `fields` its facts. */
  event(level: 'info' | 'warn' | 'error', kind: string, fields: Record<string, unknown>): void {
    this.log[level](kind, fields);
    this.tally(kind, fields);
  }

  /** Told to the listeners only: too frequent or too plain for a line of its own. */
  tally(kind: string, fields: Record<string, unknown>): void {
    for (const fn of this.#listeners) {
      try {
        fn(kind, fields);
      } catch {
        // A listener's failure never fails the event (a send, a delivery) it heard.
      }
    }
  }

  /** Hears every event and tally from now on; returns how to stop. */
  listen(fn: EventListener): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }
}
