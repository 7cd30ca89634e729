// Workspaces (tenants).
import type { Plan, Workspace } from '../../model/workspace.js';

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
}

export interface TrialWarnings {
  sent: number;
  last_at: string | null;
}
