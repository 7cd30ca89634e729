// File store: the service's own shared secrets (svc.json), sealed with the operator's key when
// there is one (secret-box.ts): with the tracked-link key, anyone could mint working redirects.
import type { SecretStore } from '../port/secrets.js';
import { openSecret, sealSecret, type SecretBox } from '../secret-box.js';
import type { DocFile } from './doc.js';

export function fileSecrets(doc: DocFile, box: SecretBox | null = null): SecretStore {
  return {
    keep: async (name, value) => {
      doc.open();
      const kept = doc.data.secrets[name];
      if (kept !== undefined) return openSecret(box, kept, `the service secret ${name}`);
      doc.data.secrets[name] = sealSecret(box, value);
      await doc.commit();
      return value;
    },
  };
}
