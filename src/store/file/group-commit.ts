// Group commit: callers ask for their change to be made durable; while one flush runs, every
// request that arrives waits for the next single flush, which takes all of them at once. So N
// concurrent writers cost at most two flushes, and each caller resolves only after a flush that
// started after its request has finished.

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export class GroupCommit {
  #running: Promise<void> | null = null;
  #waiting: Deferred | null = null;
  /** Flushes made so far. */
  flushes = 0;

  constructor(private readonly flush: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.#waiting) return this.#waiting.promise;
    if (!this.#running) return this.#start();
    this.#waiting = deferred();
    return this.#waiting.promise;
  }

  /** Resolves when no flush is running or waiting. */
  async settled(): Promise<void> {
    while (this.#running || this.#waiting) {
      await (this.#waiting?.promise ?? this.#running)?.catch(() => {});
    }
  }

  #start(): Promise<void> {
    const run = this.flush()
      .then(() => {
        this.flushes++;
      })
      .finally(() => {
        this.#running = null;
        const next = this.#waiting;
        if (next) {
          this.#waiting = null;
          this.#start().then(next.resolve, next.reject);
        }
      });
    this.#running = run;
    return run;
  }
}
