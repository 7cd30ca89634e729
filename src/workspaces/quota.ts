// Quota refusals (spec.md "Errors", "Plan quotas"): one body shape for count limits (402) and send
// limits (429): code quota_exceeded, error, kind, limit, used, window and resets_at where the quota
// resets, upgrade_url.
import { SvcError, isSvcError } from '../errors.js';
import type { Workspace } from '../store/types.js';
import { PLAN_LIMITS, type PlanLimits } from './plans.js';

export type CountKind = 'domains' | 'addresses' | 'seats' | 'contacts';

/** The store's refusal when a count is at its limit; the service turns it into the full body. */
export function countLimitReached(kind: CountKind, limit: number, used: number): SvcError {
  return new SvcError('plan_limit', `${kind} limit reached`, { details: { kind, limit, used } });
}

export function limitFor(ws: Workspace, kind: CountKind): number | null {
  const key: keyof PlanLimits = kind;
  return PLAN_LIMITS[ws.plan][key];
}

const singular: Record<CountKind, string> = { domains: 'domain', addresses: 'address', seats: 'seat', contacts: 'contact' };

/** Re-throws a store's count refusal with the spec's body; other errors pass through. */
export function explainCountLimit(e: unknown, ws: Workspace, upgradeUrl: string): never {
  if (isSvcError(e) && e.kind === 'plan_limit' && e.details) {
    const { kind, limit, used } = e.details as { kind: CountKind; limit: number; used: number };
    const noun = limit === 1 ? singular[kind] : kind;
    throw new SvcError('plan_limit', `the ${ws.plan} plan allows ${limit} ${noun} (${used} in use); upgrade the plan or remove one`, {
      details: { code: 'quota_exceeded', kind, limit, used, upgrade_url: upgradeUrl },
    });
  }
  throw e;
}
