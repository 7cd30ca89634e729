// What a plan counts (spec.md "Plan quotas"): kinds with a count limit, and the windows sends are
// counted in.

/** How many of a kind a workspace may have; null for unlimited. */
export type CountLimit = number | null;

export type CountKind = 'domains' | 'addresses' | 'seats' | 'contacts';

/** A send-quota window a send is counted in (per day and per month). */
export interface QuotaWindow {
  /** `day:YYYY-MM-DD` or `month:YYYY-MM`. */
  key: string;
  window: 'day' | 'month';
  /** null: counted, never refused. */
  limit: number | null;
  resets_at: string;
}

/**
 * The send quota's rule: `n` more sends fit when no counted window with a limit would pass it;
 * otherwise the first such window, with its count, is why not. Every store asks this with the
 * counts it holds (under the workspace's lock) before it counts the sends.
 */
export function overQuota(
  windows: readonly QuotaWindow[],
  used: (key: string) => number,
  n: number,
): { refused: 'send_quota'; window: QuotaWindow; used: number } | null {
  for (const w of windows) {
    const u = used(w.key);
    if (w.limit !== null && u + n > w.limit) return { refused: 'send_quota', window: w, used: u };
  }
  return null;
}
