// File store: the service's own shared secrets (svc.json).
import type { SecretStore } from '../port/secrets.js';
import type { DocFile } from './doc.js';

export function fileSecrets(doc: DocFile): SecretStore {
  return {
    keep: async (name, value) => {
      doc.open();
      const kept = doc.data.secrets[name];
      if (kept !== undefined) return kept;
      doc.data.secrets[name] = value;
      await doc.commit();
      return value;
    },
  };
}
