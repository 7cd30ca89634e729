// Group commit for the SQL backends. A round trip (Postgres) or a commit (SQLite: an fsync) costs
// more than the work of most statements here, and a send holds its workspace's quota lock until it
// commits, so the sends of one workspace take turns. Calls that arrive while a transaction runs go
// together in the next one instead: one lock hold and one commit for all of them (accepted sends,
// idempotency claims, completions).
//
// A failing transaction stores nothing, so when a batch fails (a send over its quota, say) each of
// its calls runs again on its own: every call still gets exactly its own answer.
//
// On SQLite a transaction runs without leaving the event loop (its calls are synchronous), so no
// call would ever arrive while one runs: there a batch gathers the calls of one turn of the event
// loop (every request whose bytes came in together) before it starts (`gather`).
interface Waiting<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

export interface BatchOptions {
  /** Transactions in flight at once (calls of other workspaces need not wait for a lock they do not share). */
  parallel?: number;
  /** Calls per transaction, so that one batch never holds a lock for long. */
  max?: number;
  /** A failure whose outcome is unknown (it may have committed): the calls are not run again. */
  unknown?: (e: unknown) => boolean;
  /** Wait for the rest of this turn of the event loop before a batch starts (SQLite). */
  gather?: boolean;
}

export class Batcher<T, R> {
  #waiting: Array<Waiting<T, R>> = [];
  #running = 0;
  #gathering = false;
  readonly #parallel: number;
  readonly #max: number;
  readonly #unknown: (e: unknown) => boolean;
  readonly #gather: boolean;

  /** `write` runs the items in one transaction, all or none, and answers each in order. */
  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    opts: BatchOptions = {},
  ) {
    this.#parallel = opts.parallel ?? 2;
    this.#max = opts.max ?? 100;
    this.#unknown = opts.unknown ?? (() => false);
    this.#gather = opts.gather ?? false;
  }

  run(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#running >= this.#parallel || !this.#waiting.length || this.#gathering) return;
    if (this.#gather) {
      this.#gathering = true;
      setImmediate(() => {
        this.#gathering = false;
        this.#start();
      });
      return;
    }
    this.#start();
  }

  #start(): void {
    if (this.#running >= this.#parallel || !this.#waiting.length) return;
    const batch = this.#waiting.splice(0, this.#max);
    this.#running++;
    void this.#flush(batch).finally(() => {
      this.#running--;
      this.#next();
    });
  }

  async #flush(batch: Array<Waiting<T, R>>): Promise<void> {
    if (batch.length > 1) {
      try {
        const out = await this.write(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(out[i]!));
        return;
      } catch (e) {
        // It may have been stored after all: each caller finds out for itself (pg-mail.ts fences).
        if (this.#unknown(e)) return batch.forEach((w) => w.reject(e));
        // Nothing of the batch is stored: each call is tried alone below.
      }
    }
    await Promise.all(batch.map((w) => this.write([w.item]).then((out) => w.resolve(out[0]!), w.reject)));
  }
}
