// Many at once, or one alone: an asynchronous readers-writer lock. The file store's inbox reads,
// receives and deletes share it; a segment's rewrite, which moves the lines they read by offset,
// takes it alone. A shared call that finds the gate open enters at once, before its first await,
// so what it looked up synchronously stays true until it leaves.
export class Gate {
  #shared = 0;
  /** The alone call running or waiting for the shared ones to leave. */
  #alone: Promise<void> | null = null;
  #drained: (() => void) | null = null;

  async shared<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#alone) await this.#alone;
    this.#shared++;
    try {
      return await fn();
    } finally {
      if (--this.#shared === 0) this.#drained?.();
    }
  }

  async alone<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#alone) await this.#alone;
    let open!: () => void;
    this.#alone = new Promise<void>((r) => (open = r));
    try {
      if (this.#shared > 0) await new Promise<void>((r) => (this.#drained = r));
      this.#drained = null;
      return await fn();
    } finally {
      this.#alone = null;
      open();
    }
  }
}
