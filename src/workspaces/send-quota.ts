// The API + SMTP send allowance (spec.md "Plan quotas", "Errors"): one shared count per workspace,
// per UTC day and per month, every recipient counted; over it → 429 code quota_exceeded (the relay
// defers with 452 4.5.3), nothing queued.
import { SvcError } from '../errors.js';
import type { QuotaWindow } from '../model/quota.js';
import type { SendQuotaRefusal } from '../model/refusal.js';
import { PLAN_LIMITS, type Workspace } from '../model/workspace.js';

export function sendWindows(ws: Workspace, now: Date): QuotaWindow[] {
  const limits = PLAN_LIMITS[ws.plan];
  const day = now.toISOString().slice(0, 10);
  const month = day.slice(0, 7);
  const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return [
    { key: `day:${day}`, window: 'day', limit: limits.api_sends_per_day, resets_at: tomorrow.toISOString() },
    { key: `month:${month}`, window: 'month', limit: limits.api_sends_per_month, resets_at: nextMonth.toISOString() },
  ];
}

/** Inbox sends per day (spec.md "Plan quotas"): a separate allowance, counted in its own window. */
export function inboxWindows(ws: Workspace, now: Date): QuotaWindow[] {
  const day = now.toISOString().slice(0, 10);
  const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return [{ key: `inbox-day:${day}`, window: 'day', limit: PLAN_LIMITS[ws.plan].inbox_sends_per_day, resets_at: tomorrow.toISOString() }];
}

/**
 * `make` (sendWindows or inboxWindows) remembered for the current UTC day, by plan: the windows
 * change only at midnight, and making them (three ISO dates, 2 µs) came twice in every relayed
 * message. What it hands out is frozen: callers read the windows, the stores copy what they keep.
 */
export function windowsOfToday(make: (ws: Workspace, now: Date) => QuotaWindow[]): (ws: Workspace, now: Date) => QuotaWindow[] {
  let day = NaN;
  const byPlan = new Map<Workspace['plan'], QuotaWindow[]>();
  return (ws, now) => {
    const today = Math.floor(now.getTime() / 86_400_000);
    if (today !== day) {
      day = today;
      byPlan.clear();
    }
    let windows = byPlan.get(ws.plan);
    if (!windows) {
      windows = Object.freeze(make(ws, now).map((w) => Object.freeze(w))) as QuotaWindow[];
      byPlan.set(ws.plan, windows);
    }
    return windows;
  };
}

/** A store's send-quota refusal as the spec's error (429 quota_exceeded, with upgrade_url). */
export function sendQuotaError(
  r: SendQuotaRefusal,
  ws: Workspace,
  upgradeUrl: string,
  kind: 'api_sends' | 'inbox_sends' = 'api_sends',
): SvcError {
  const { window: w, used } = r;
  const what = kind === 'api_sends' ? 'API and SMTP sends' : 'inbox sends';
  return new SvcError(
    'quota_exceeded',
    `sending limit reached: the ${ws.plan} plan allows ${w.limit} ${what} per ${w.window} (${used} used); resets at ${w.resets_at}`,
    { details: { code: 'quota_exceeded', kind, limit: w.limit, used, window: w.window, resets_at: w.resets_at, upgrade_url: upgradeUrl } },
  );
}
