// Group commit for accepted sends on Postgres. Every send debits its workspace's quota rows, which
// stay locked until its transaction commits (svc_debit), so the sends of one workspace take turns
// and each turn pays a commit. Sends that arrive while a turn runs go together in the next
// transaction instead: one lock hold and one commit for all of them.
//
// A failing statement aborts the whole transaction, so when one fails (a send over its quota, say)
// the batch is rolled back and each of its sends runs again on its own: every send still gets
// exactly its own answer, and the fast path needs no savepoints.
import type pg from 'pg';

export interface Statement {
  name: string;
  text: string;
  values: unknown[];
}

export interface BatchDb {
  /** One statement on its own (autocommit). */
  one(stmt: Statement): Promise<void>;
  tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T>;
}

interface Waiting {
  stmt: Statement;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class AcceptBatcher {
  #waiting: Waiting[] = [];
  #running = 0;

  /**
   * @param parallel transactions in flight at once (sends of other workspaces need not wait for
   *   a lock they do not share; the pool keeps connections for everything else)
   * @param max sends per transaction, so that one batch never holds a lock for long
   */
  constructor(
    private readonly db: BatchDb,
    private readonly parallel = 2,
    private readonly max = 100,
  ) {}

  run(stmt: Statement): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ stmt, resolve, reject });
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

  async #flush(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      try {
        await this.db.tx(async (c) => {
          for (const w of batch) await c.query(w.stmt);
        });
        for (const w of batch) w.resolve();
        return;
      } catch {
        // Rolled back, so nothing of the batch is stored: each send is tried alone below.
      }
    }
    await Promise.all(batch.map((w) => this.db.one(w.stmt).then(w.resolve, w.reject)));
  }
}
