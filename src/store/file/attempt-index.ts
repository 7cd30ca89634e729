// File store: where each record's hand-off attempts are. An attempt is read back from its outcome
// line in the mail journal when asked for (`svc messages explain`, GET /messages/:id), as a queued
// send's content is: keeping every attempt in memory cost about 280 bytes per copy handed off,
// 28 MB over a 100,000-copy broadcast (README "Broadcasts and sequences"). A line's place is one
// small object shared by the copies of its job. Attempts applied without a place (none today but
// a caller that applies a line it did not write) are kept as they are.
import { ATTEMPTS_KEPT, type DeliveryAttempt } from '../../model/attempt.js';
import type { LineAt } from './journal.js';

type Kept = LineAt | DeliveryAttempt;

const isPlace = (k: Kept): k is LineAt => 'offset' in k;

export class AttemptIndex {
  readonly #of = new Map<string, Kept | Kept[]>();

  /** Notes an attempt of `messageId`: where its line lies, or the attempt itself. */
  add(messageId: string, kept: Kept): void {
    const had = this.#of.get(messageId);
    if (had === undefined) return void this.#of.set(messageId, kept);
    const list = Array.isArray(had) ? had : [had];
    // One line may hold several attempts of a record (each MX tried): its place once.
    if (list.at(-1) === kept) return;
    list.push(kept);
    if (list.length > ATTEMPTS_KEPT) list.splice(0, list.length - ATTEMPTS_KEPT);
    if (!Array.isArray(had)) this.#of.set(messageId, list);
  }

  delete(messageId: string): void {
    this.#of.delete(messageId);
  }

  /** The record's newest attempts, oldest first, read from their lines. */
  async read(messageId: string, readAt: (at: LineAt) => Promise<{ outcome?: { transcript?: DeliveryAttempt[] } } | null>): Promise<DeliveryAttempt[]> {
    const had = this.#of.get(messageId);
    if (had === undefined) return [];
    const out: DeliveryAttempt[] = [];
    for (const k of Array.isArray(had) ? had : [had]) {
      if (!isPlace(k)) out.push(k);
      else for (const a of (await readAt(k))?.outcome?.transcript ?? []) if (a.message_id === messageId) out.push(a);
    }
    return out.slice(-ATTEMPTS_KEPT);
  }
}
