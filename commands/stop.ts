// How a command that runs until stopped (a live view, a follower, a wait) hears Ctrl-C and SIGTERM:
// an abort signal, a sleep that ends early when stopped, and the exit code to return (the shell's:
// 128 + the signal's number, 130 for SIGINT, 143 for SIGTERM).
export const EXIT_SIGINT = 130;
export const EXIT_SIGTERM = 143;

export interface Stop {
  readonly signal: AbortSignal;
  /** The exit code once stopped: 130 (Ctrl-C; also a live view's Ctrl-C key) or 143 (SIGTERM). */
  code(): number;
  /** Waits `ms`, or less when stopped. */
  sleep(ms: number): Promise<void>;
  /** Gives the signals back (call in a finally). */
  dispose(): void;
}

export function onStop(): Stop {
  const stop = new AbortController();
  let code = EXIT_SIGINT;
  const onInt = () => stop.abort();
  const onTerm = () => {
    code = EXIT_SIGTERM;
    stop.abort();
  };
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  return {
    signal: stop.signal,
    code: () => code,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (stop.signal.aborted) return resolve();
        // Each sleep takes its listener off again: a view that sleeps twice a second would otherwise
        // pile them up on the signal (and Node warns, into the view, past ten).
        const wake = () => (clearTimeout(t), resolve());
        const t = setTimeout(() => (stop.signal.removeEventListener('abort', wake), resolve()), ms);
        stop.signal.addEventListener('abort', wake, { once: true });
      }),
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
