// File store: the service's STARTTLS identity (svc.json).
import type { TlsStore } from '../port/tls.js';
import { copy, type DocFile } from './doc.js';

export function fileTls(doc: DocFile): TlsStore {
  return {
    get: async () => {
      doc.open();
      return doc.data.tls ? copy(doc.data.tls) : null;
    },
    saveIfAbsent: async (t) => {
      doc.open();
      if (!doc.data.tls) {
        doc.data.tls = { cert: t.cert, key: t.key, created_at: t.created_at };
        await doc.commit();
      }
      return copy(doc.data.tls!);
    },
  };
}
