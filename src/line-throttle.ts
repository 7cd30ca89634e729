// How lines that repeat are kept from flooding a log: the first of a kind in a window is written
// at once, the others in the window are only counted, and the next line written says how many
// there were. Shared by the event log (event-log.ts) and the fault register (faults.ts).

/** Kinds remembered at most (the oldest forgotten first), so that keys from input cannot grow it. */
const MAX_KINDS = 1000;

export class LineThrottle {
  #kinds = new Map<string, { at: number; held: number }>();

  constructor(private readonly windowMs: number) {}

  /** null: hold this line (it is counted); else write it, with how many were held since the last. */
  pass(kind: string, now: number): number | null {
    const cur = this.#kinds.get(kind);
    // A clock that went back starts a new window rather than holding lines for ever.
    if (cur && now - cur.at < this.windowMs && now >= cur.at) {
      cur.held++;
      return null;
    }
    this.#kinds.delete(kind);
    this.#kinds.set(kind, { at: now, held: 0 });
    while (this.#kinds.size > MAX_KINDS) this.#kinds.delete(this.#kinds.keys().next().value!);
    return cur?.held ?? 0;
  }

  forget(kind: string): void {
    this.#kinds.delete(kind);
  }
}
