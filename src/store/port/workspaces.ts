// Workspaces (tenants).
import type { Plan, Workspace } from '../../model/workspace.js';

export interface WorkspaceStore {
  /** Throws SvcError conflict when the name is taken. */
  create(ws: Workspace): Promise<Workspace>;
  list(): Promise<Workspace[]>;
  getByName(name: string): Promise<Workspace | null>;
  setPlan(id: string, plan: Plan): Promise<Workspace | null>;
}
