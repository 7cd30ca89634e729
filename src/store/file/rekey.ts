// `svc store rekey` on a file store: every sealed value of svc.json (DKIM private keys, the
// STARTTLS private key, the service's secrets) opened with the current key and sealed with the
// new one, in one atomic write of svc.json, under the store's lock (the daemon must be stopped).
import { SecretBox, resealAll } from '../secret-box.js';
import { DocFile } from './doc.js';
import { lockForMaintenance } from './lock.js';

export async function rekeyFileStore(
  dir: string,
  current: Buffer | undefined,
  next: Buffer,
): Promise<{ resealed: number; key_id: string }> {
  const lock = await lockForMaintenance(dir, 'svc store rekey');
  try {
    const doc = new DocFile(dir);
    await doc.load();
    const d = doc.data;
    const values = [
      ...d.domains.map((x) => ({
        what: `the DKIM key of ${x.domain}`,
        value: x.dkim_private_key,
        set: (v: string) => (x.dkim_private_key = v),
      })),
      ...(d.tls ? [{ what: 'the STARTTLS private key', value: d.tls.key, set: (v: string) => (d.tls!.key = v) }] : []),
      ...Object.keys(d.secrets).map((name) => ({
        what: `the service secret ${name}`,
        value: d.secrets[name]!,
        set: (v: string) => (d.secrets[name] = v),
      })),
    ];
    const to = new SecretBox(next);
    const sealed = resealAll(values, current ? new SecretBox(current) : null, to);
    values.forEach((v, i) => v.set(sealed[i]!));
    await doc.commit();
    await doc.close();
    return { resealed: values.length, key_id: to.id };
  } finally {
    await lock.release();
  }
}
