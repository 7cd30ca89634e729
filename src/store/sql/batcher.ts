// Group commit for the SQL backends. A round trip (Postgres) or a commit (SQLite: an fsync) costs
// more than the work of most statements here, and a send holds its workspace's quota lock until it
// commits, so the sends of one workspace take turns. Calls that arrive while a transaction runs go
// together in the next one instead: one lock hold and one commit for all of them (accepted sends,
// idempotency claims, completions).
//
// A failing transaction stores nothing, so when a batch fails (a send over its quota, say) each of
// its calls runs again on its own: every call still gets exactly its own answer.
interface Waiting<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

export class Batcher<T, R> {
  #waiting: Array<Waiting<T, R>> = [];
  #running = 0;

  /**
   * @param write runs the items in one statement, all or none, and answers each in order
   * @param parallel statements in flight at once (calls of other workspaces need not wait for a
   *   lock they do not share; the pool keeps connections for everything else)
   * @param max calls per statement, so that one batch never holds a lock for long
   */
  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly parallel = 2,
    private readonly max = 100,
    /** A failure whose outcome is unknown (it may have committed): the calls are not run again. */
    private readonly unknown: (e: unknown) => boolean = () => false,
  ) {}

  run(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#running >= this.parallel || !this.#waiting.length) return;
    const batch = this.#waiting.splice(0, this.max);
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
        if (this.unknown(e)) return batch.forEach((w) => w.reject(e));
        // Nothing of the batch is stored: each call is tried alone below.
      }
    }
    await Promise.all(batch.map((w) => this.write([w.item]).then((out) => w.resolve(out[0]!), w.reject)));
  }
}
