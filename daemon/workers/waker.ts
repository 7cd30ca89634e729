// A worker's idle wait: it sleeps until its next poll, or until someone has work for it sooner.
export class Waker {
  #wake: (() => void) | null = null;

  /** Resolves after `ms`, or at the next wake(). */
  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => this.wake(), ms);
      this.#wake = () => {
        clearTimeout(t);
        this.#wake = null;
        resolve();
      };
    });
  }

  wake(): void {
    this.#wake?.();
  }
}
