// File store: where a record's entries of some kind lie in a journal that is only appended to (the
// mail journal), so that they are read back from their lines when asked for instead of being kept
// in memory. A line's place is one small object shared by every record with entries in that line.
// Entries applied without a place (from a journal that is compacted, or a caller that applies a
// line it did not write) are kept as they are.
//
// Two kinds today:
// - a record's hand-off attempts (AttemptIndex), read by `svc messages explain` and GET
//   /messages/:id: keeping every attempt cost about 280 bytes per copy handed off, 28 MB over a
//   100,000-copy broadcast;
// - a record's opens and clicks (tracking.ts), read by GET /messages/:id/events: each kept as an
//   object with its user agent made memory grow with every open, and every open survived into the
//   old generation, where the collector paid for it again.
import { ATTEMPTS_KEPT, type DeliveryAttempt } from '../../model/attempt.js';
import type { LineAt } from './journal.js';

const isPlace = <T>(k: LineAt | T): k is LineAt => typeof k === 'object' && k !== null && 'offset' in k && 'partition' in k;

export class LineIndex<T, L> {
  readonly #of = new Map<string, LineAt | T | Array<LineAt | T>>();
  readonly #entries: (line: L, recordId: string) => T[];
  readonly #kept: number;

  /** `entries`: the record's entries in one of its lines; `kept`: how many of a record's newest are kept. */
  constructor(entries: (line: L, recordId: string) => T[], kept = Infinity) {
    this.#entries = entries;
    this.#kept = kept;
  }

  /** Notes an entry of `recordId`: where its line lies, or the entry itself. */
  add(recordId: string, kept: LineAt | T): void {
    const had = this.#of.get(recordId);
    if (had === undefined) return void this.#of.set(recordId, kept);
    const list = Array.isArray(had) ? had : [had];
    // One line may hold several entries of a record: its place once.
    if (list.at(-1) === kept) return;
    list.push(kept);
    if (list.length > this.#kept) list.splice(0, list.length - this.#kept);
    if (!Array.isArray(had)) this.#of.set(recordId, list);
  }

  delete(recordId: string): void {
    this.#of.delete(recordId);
  }

  /** The record's entries, oldest first, read from their lines (the newest `kept`). */
  async read(recordId: string, readAt: (at: LineAt) => Promise<L | null>): Promise<T[]> {
    const had = this.#of.get(recordId);
    if (had === undefined) return [];
    const out: T[] = [];
    for (const k of Array.isArray(had) ? had : [had]) {
      if (!isPlace(k)) out.push(k);
      else {
        const line = await readAt(k);
        if (line) out.push(...this.#entries(line, recordId));
      }
    }
    return this.#kept === Infinity ? out : out.slice(-this.#kept);
  }
}

/** A record's newest hand-off attempts (ATTEMPTS_KEPT), from the outcome lines of its jobs. */
export class AttemptIndex extends LineIndex<DeliveryAttempt, { outcome?: { transcript?: DeliveryAttempt[] } }> {
  constructor() {
    super((line, id) => (line.outcome?.transcript ?? []).filter((a) => a.message_id === id), ATTEMPTS_KEPT);
  }
}
