// The trial's end (spec.md "Plan quotas": "after 7 days the workspace becomes read-only; after a
// further 30 days without a plan the data is deleted, after three warning emails"). The dates follow
// from the workspace's creation alone, so every daemon and command agrees on them without a write;
// moving to a plan stops the countdown (a plan has no dates).
import { SvcError } from '../errors.js';
import type { Workspace } from '../model/workspace.js';

export const TRIAL_DAYS = 7;
/** Days a read-only trial is kept before its data is deleted. */
export const TRIAL_GRACE_DAYS = 30;
/** The three warnings, in days before the deletion (docs/limits.md "The trial's end"). */
export const TRIAL_WARNING_DAYS = [14, 7, 1] as const;

const DAY_MS = 86_400_000;

export interface TrialDates {
  read_only_at: string;
  delete_at: string;
  /** When each warning is due, in TRIAL_WARNING_DAYS' order. */
  warnings: string[];
}

/** A trial workspace's dates; null for a workspace on a plan. */
export function trialDates(ws: Pick<Workspace, 'plan' | 'created_at'>): TrialDates | null {
  if (ws.plan !== 'trial') return null;
  const readOnly = Date.parse(ws.created_at) + TRIAL_DAYS * DAY_MS;
  const del = readOnly + TRIAL_GRACE_DAYS * DAY_MS;
  return {
    read_only_at: new Date(readOnly).toISOString(),
    delete_at: new Date(del).toISOString(),
    warnings: TRIAL_WARNING_DAYS.map((d) => new Date(del - d * DAY_MS).toISOString()),
  };
}

/** spec.md "Limits": after 7 days a trial workspace is read-only. */
export function assertWritable(ws: Workspace, now: Date): void {
  const dates = trialDates(ws);
  if (dates && now.getTime() >= Date.parse(dates.read_only_at)) {
    throw new SvcError(
      'forbidden',
      `the trial of workspace '${ws.name}' ended on ${dates.read_only_at}: it is read-only until it moves to a plan`,
    );
  }
}
