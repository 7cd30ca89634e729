// The one store interface (DESIGN.md "Shape"): async, grouped by aggregate, with the operations the
// service needs. Both backends implement it and pass test/src/store/conformance.ts.
import type { Scope } from '../auth/scopes.js';
import type { Plan } from '../workspaces/plans.js';

export interface Workspace {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
}

export interface ApiKey {
  id: string;
  workspace_id: string;
  name: string;
  scopes: Scope[];
  /** The first characters of the key, enough for a person to recognise it; never the whole key. */
  prefix: string;
  /** hex SHA-256 of the full key. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface KeyOwner {
  key: ApiKey;
  workspace: Workspace;
}

export interface WorkspaceStore {
  /** Throws SvcError conflict when the name is taken. */
  create(ws: Workspace): Promise<Workspace>;
  list(): Promise<Workspace[]>;
  getByName(name: string): Promise<Workspace | null>;
  setPlan(id: string, plan: Plan): Promise<Workspace | null>;
}

export interface KeyStore {
  create(key: ApiKey): Promise<ApiKey>;
  listByWorkspace(workspaceId: string): Promise<ApiKey[]>;
  /** The key with this hash and its workspace, revoked or not. */
  findByHash(hash: string): Promise<KeyOwner | null>;
  /** Sets revoked_at once; revoking again keeps the first time. Null when no such key in the workspace. */
  revoke(workspaceId: string, id: string, at: string): Promise<ApiKey | null>;
}

export interface StoreGroups {
  workspaces: WorkspaceStore;
  keys: KeyStore;
}

export interface Store extends StoreGroups {
  /** A short description for logs, never with a password. */
  readonly describe: string;
  /** Resolves when the store answers; throws SvcError store_unavailable otherwise. */
  health(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every operation of every group, so that the daemon's admin socket can forward exactly these and
 * nothing else. The mapped type makes the compiler insist that a new operation is listed here.
 */
export const storeOperations: { [G in keyof StoreGroups]: Record<keyof StoreGroups[G], true> } = {
  workspaces: { create: true, list: true, getByName: true, setPlan: true },
  keys: { create: true, listByWorkspace: true, findByHash: true, revoke: true },
};
