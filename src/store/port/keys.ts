// API keys.
import type { ApiKey, KeyOwner } from '../../model/key.js';

export interface KeyStore {
  create(key: ApiKey): Promise<ApiKey>;
  listByWorkspace(workspaceId: string): Promise<ApiKey[]>;
  /** The key with this hash and its workspace, revoked or not. */
  findByHash(hash: string): Promise<KeyOwner | null>;
  /** Sets revoked_at once; revoking again keeps the first time. Null when no such key in the workspace. */
  revoke(workspaceId: string, id: string, at: string): Promise<ApiKey | null>;
}
