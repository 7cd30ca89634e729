// Workspaces (tenants).
import type { Plan, Workspace, WorkspaceDeletion } from '../../model/workspace.js';

export interface WorkspaceStore {
  /** Throws SvcError conflict when the name is taken. */
  create(ws: Workspace): Promise<Workspace>;
  list(): Promise<Workspace[]>;
  getByName(name: string): Promise<Workspace | null>;
  setPlan(id: string, plan: Plan): Promise<Workspace | null>;
  /** How many of the trial's warnings were sent (0 to 3) and when the last went (workspaces/trial.ts). */
  trialWarnings(id: string): Promise<TrialWarnings>;
  /**
   * Records warning `n` as sent at `at`, only when `n - 1` were: false when it was not so (another
   * daemon recorded it first), so that each is recorded once.
   */
  recordTrialWarning(id: string, n: number, at: string): Promise<boolean>;
  /**
   * Ends a workspace at once: its API keys and memberships are removed (and the accounts of its
   * people who are members of no other workspace), it leaves list() and getByName(), and its name
   * is free. Its data stays until purge() removes it. false when there
   * is no such workspace (or it is already deleted).
   */
  markDeleted(id: string, at: string, reason: string): Promise<boolean>;
  /** Workspaces marked deleted whose data is not all removed yet, first asked first. */
  deletions(): Promise<WorkspaceDeletion[]>;
  /**
   * Takes a deletion's purge for `owner` (exactly one daemon works on it at a time): true when no
   * one holds it, `owner` does (a renewal), or its holder last renewed more than `staleMs` ago.
   */
  claimDeletion(id: string, owner: string, at: string, staleMs: number): Promise<boolean>;
  /**
   * Removes up to about `limit` records of a workspace marked deleted and, once nothing else of it
   * is left, the workspace itself: `done` is true for the one call that removed it.
   */
  purge(id: string, limit: number): Promise<{ removed: number; done: boolean }>;
}

export interface TrialWarnings {
  sent: number;
  last_at: string | null;
}
