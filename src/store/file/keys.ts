// File store: API keys (svc.json), found by hash through an index.
import { SvcError } from '../../errors.js';
import type { ApiKey, KeyOwner } from '../../model/key.js';
import type { KeyStore } from '../port/keys.js';
import { copy, type DocFile } from './doc.js';

export function fileKeys(doc: DocFile): KeyStore {
  return {
    create: async (key) => {
      doc.open();
      if (!doc.wsById.has(key.workspace_id)) throw new SvcError('not_found', 'workspace not found');
      if (doc.keyByHash.has(key.hash)) throw new SvcError('conflict', 'key already exists');
      const rec: ApiKey = {
        id: key.id,
        workspace_id: key.workspace_id,
        name: key.name,
        scopes: [...key.scopes],
        prefix: key.prefix,
        hash: key.hash,
        created_at: key.created_at,
        revoked_at: key.revoked_at,
      };
      doc.data.keys.push(rec);
      doc.keyByHash.set(rec.hash, rec);
      await doc.commit();
      return copy(rec);
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return copy(doc.data.keys.filter((k) => k.workspace_id === workspaceId));
    },
    findByHash: async (hash): Promise<KeyOwner | null> => {
      doc.open();
      const key = doc.keyByHash.get(hash);
      const workspace = key && doc.wsById.get(key.workspace_id);
      return key && workspace ? { key: copy(key), workspace: copy(workspace) } : null;
    },
    revoke: async (workspaceId, id, at) => {
      doc.open();
      const key = doc.data.keys.find((k) => k.id === id && k.workspace_id === workspaceId);
      if (!key) return null;
      if (key.revoked_at === null) {
        key.revoked_at = at;
        await doc.commit();
      }
      return copy(key);
    },
  };
}
