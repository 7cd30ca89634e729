// File store: the service's STARTTLS identity (svc.json). With the operator's key its private key
// is kept sealed there, like the DKIM keys (secret-box.ts).
import type { TlsStore } from '../port/tls.js';
import type { TlsIdentity } from '../../model/tls.js';
import { openSecret, sealSecret, type SecretBox } from '../secret-box.js';
import { copy, type DocFile } from './doc.js';

export function fileTls(doc: DocFile, box: SecretBox | null = null): TlsStore {
  const opened = (t: TlsIdentity): TlsIdentity => ({ ...copy(t), key: openSecret(box, t.key, 'the STARTTLS private key') });
  return {
    get: async () => {
      doc.open();
      return doc.data.tls ? opened(doc.data.tls) : null;
    },
    saveIfAbsent: async (t) => {
      doc.open();
      if (!doc.data.tls) {
        doc.data.tls = { cert: t.cert, key: sealSecret(box, t.key), created_at: t.created_at };
        await doc.commit();
      }
      return opened(doc.data.tls!);
    },
  };
}
