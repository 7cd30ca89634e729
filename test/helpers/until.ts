// Waiting for a state from outside (a daemon's queue, its report): read again every `everyMs`
// until it holds, and fail with what was last read once `ms` has passed: a test never waits for ever.
// The deadline is against a hang only: a loaded machine (the whole suite at once) can be slow.
export async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms = 120_000, everyMs = 100): Promise<T> {
  for (const end = Date.now() + ms; ;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
