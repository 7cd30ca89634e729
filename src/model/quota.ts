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
