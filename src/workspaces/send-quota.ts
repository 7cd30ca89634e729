// The API + SMTP send allowance (spec.md "Plan quotas", "Errors"): one shared count per workspace,
// per UTC day and per month, every recipient counted; over it → 429 code quota_exceeded (the relay
// defers with 452 4.5.3), nothing queued.
import { SvcError, isSvcError } from '../errors.js';
import type { QuotaWindow, Workspace } from '../store/types.js';
import { PLAN_LIMITS } from './plans.js';

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

/** The refusal a store raises when a send would go over a window. */
export function sendQuotaReached(w: QuotaWindow, used: number): SvcError {
  return new SvcError('quota_exceeded', 'send quota reached', { details: { kind: 'api_sends', limit: w.limit, used, window: w.window, resets_at: w.resets_at } });
}

/** Re-throws a store's quota refusal with the spec's body (code, error, upgrade_url). */
export function explainSendQuota(e: unknown, ws: Workspace, upgradeUrl: string): never {
  if (isSvcError(e) && e.kind === 'quota_exceeded' && e.details && !('code' in e.details)) {
    const d = e.details as { limit: number; used: number; window: 'day' | 'month'; resets_at: string };
    throw new SvcError(
      'quota_exceeded',
      `sending limit reached: the ${ws.plan} plan allows ${d.limit} API and SMTP sends per ${d.window} (${d.used} used); resets at ${d.resets_at}`,
      { details: { code: 'quota_exceeded', kind: 'api_sends', limit: d.limit, used: d.used, window: d.window, resets_at: d.resets_at, upgrade_url: upgradeUrl } },
    );
  }
  throw e;
}
