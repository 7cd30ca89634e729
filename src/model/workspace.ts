// The workspace (tenant) and the plans of spec.md "Plan quotas". null = unlimited.
import { SvcError } from '../errors.js';

export const PLANS = ['trial', 'starter', 'pro', 'scale'] as const;
export type Plan = (typeof PLANS)[number];

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
}

/**
 * A workspace whose deletion was asked for (its owner in the app, or the trial's end): it is gone
 * for everyone at once, and its data is removed afterwards in batches (src/workspaces/deletion.ts).
 */
export interface WorkspaceDeletion {
  id: string;
  /** The name it had (freed at once: a new workspace may take it). */
  name: string;
  plan: Plan;
  created_at: string;
  deleted_at: string;
  /** Who asked: `trial` (the trial's end) or `owner:EMAIL` (the app). */
  reason: string;
}

export function parsePlan(s: string): Plan {
  if ((PLANS as readonly string[]).includes(s)) return s as Plan;
  throw new SvcError('usage', `unknown plan '${s}' (use ${PLANS.join(', ')})`);
}

export interface PlanLimits {
  seats: number | null;
  domains: number | null;
  addresses: number | null;
  storage_bytes: number | null;
  inbox_sends_per_day: number | null;
  api_sends_per_month: number | null;
  api_sends_per_day: number | null;
  ai_actions_per_month: number | null;
  ai_actions_per_day: number | null;
  contacts: number | null;
}

const GB = 1024 ** 3;

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  trial: {
    seats: 2,
    domains: 1,
    addresses: 3,
    storage_bytes: 1 * GB,
    inbox_sends_per_day: 50,
    api_sends_per_month: 1_400,
    api_sends_per_day: 200,
    ai_actions_per_month: 175,
    ai_actions_per_day: 25,
    contacts: 100,
  },
  starter: {
    seats: 3,
    domains: 2,
    addresses: 10,
    storage_bytes: 10 * GB,
    inbox_sends_per_day: 500,
    api_sends_per_month: 10_000,
    api_sends_per_day: null,
    ai_actions_per_month: 300,
    ai_actions_per_day: null,
    contacts: 1_000,
  },
  pro: {
    seats: 10,
    domains: 10,
    addresses: 50,
    storage_bytes: 50 * GB,
    inbox_sends_per_day: 2_000,
    api_sends_per_month: 50_000,
    api_sends_per_day: null,
    ai_actions_per_month: 2_000,
    ai_actions_per_day: null,
    contacts: 10_000,
  },
  scale: {
    seats: null,
    domains: null,
    addresses: null,
    storage_bytes: null,
    inbox_sends_per_day: null,
    api_sends_per_month: null,
    api_sends_per_day: null,
    ai_actions_per_month: null,
    ai_actions_per_day: null,
    contacts: null,
  },
};
