// spec.md "Plan quotas": the plans a workspace can be on. Quota figures arrive with the quota issue.
import { SvcError } from '../errors.js';

export const PLANS = ['trial', 'starter', 'pro', 'scale'] as const;
export type Plan = (typeof PLANS)[number];

export function parsePlan(s: string): Plan {
  if ((PLANS as readonly string[]).includes(s)) return s as Plan;
  throw new SvcError('usage', `unknown plan '${s}' (use ${PLANS.join(', ')})`);
}
