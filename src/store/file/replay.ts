// The replay registry of a journal: each aggregate that writes lines to it registers its line
// kinds (their shape check) and how it applies them; other aggregates may observe a kind too (the
// idempotency claims an accept line completes). Reading the journal at start and every write that
// follows go through the same `apply`, so the state after a restart is the state before it. A new
// record type registers here from its own file and never edits a central union.
import type { LineAt } from './journal.js';
import type { Check } from './shapes.js';

export interface Line {
  t: string;
  at: string;
}

type Apply = (line: never, at: LineAt | undefined) => void;

export class Replay {
  readonly #checks = new Map<string, Check>();
  readonly #appliers = new Map<string, Apply[]>();
  readonly #finishers: Array<() => void> = [];

  /** Declares a line kind with its shape check (once per kind). */
  kind(t: string, check: Check): this {
    if (this.#checks.has(t)) throw new Error(`journal line kind ${t} is registered twice`);
    this.#checks.set(t, check);
    return this;
  }

  /** Applies lines of kind `t` (after those registered before). */
  on<L extends Line>(t: string, apply: (line: L, at: LineAt | undefined) => void): this {
    const list = this.#appliers.get(t) ?? [];
    list.push(apply as Apply);
    this.#appliers.set(t, list);
    return this;
  }

  /** Runs once the whole journal is read at start (for marks that may precede what they mark). */
  afterReplay(fn: () => void): this {
    this.#finishers.push(fn);
    return this;
  }

  /** What is wrong with a parsed line, or null: the journal's `validate`. */
  readonly validate = (v: unknown): string | null => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not an object';
    const t = (v as { t?: unknown }).t;
    const check = typeof t === 'string' ? this.#checks.get(t) : undefined;
    return check ? check(v) : `unknown record type ${JSON.stringify(t)}`;
  };

  apply(line: Line, at?: LineAt): void {
    for (const fn of this.#appliers.get(line.t) ?? []) (fn as (l: Line, a: LineAt | undefined) => void)(line, at);
  }

  finish(): void {
    for (const fn of this.#finishers) fn();
  }
}
