// src/workspaces/: workspaces, plans' count limits and send quotas.
//
// Quota refusals (spec.md "Errors", "Plan quotas"): one body shape for count limits (402) and send
// limits (429): code quota_exceeded, error, kind, limit, used, window and resets_at where the quota
// resets, upgrade_url.
import { SvcError } from '../errors.js';
import type { CountKind } from '../model/quota.js';
import type { Created } from '../model/refusal.js';
import { PLAN_LIMITS, type PlanLimits, type Workspace } from '../model/workspace.js';

export function limitFor(ws: Workspace, kind: CountKind): number | null {
  const key: keyof PlanLimits = kind;
  return PLAN_LIMITS[ws.plan][key];
}

const singular: Record<CountKind, string> = { domains: 'domain', addresses: 'address', seats: 'seat', contacts: 'contact' };

/** The record a store created, or its count refusal as the spec's error (402 quota_exceeded). */
export function createdOrLimit<T extends object>(r: Created<T>, ws: Workspace, upgradeUrl: string): T {
  if (!('refused' in r)) return r;
  const { kind, limit, used } = r;
  const noun = limit === 1 ? singular[kind] : kind;
  throw new SvcError('plan_limit', `the ${ws.plan} plan allows ${limit} ${noun} (${used} in use); upgrade the plan or remove one`, {
    details: { code: 'quota_exceeded', kind, limit, used, upgrade_url: upgradeUrl },
  });
}
