// The STARTTLS identity of the relay (and later the MX): the operator's --tls-cert/--tls-key, else a
// self-signed pair made once and kept with the store, so every restart (and every daemon on one
// Postgres) presents the same certificate.
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { TlsIdentity } from '../model/tls.js';

export async function tlsIdentity({ store, config, clock, log }: DepsOf<'tls'>): Promise<Pick<TlsIdentity, 'cert' | 'key'>> {
  if (config.tlsCert && config.tlsKey) {
    try {
      return { cert: await readFile(config.tlsCert, 'utf8'), key: await readFile(config.tlsKey, 'utf8') };
    } catch (e) {
      throw new SvcError('usage', `cannot read the TLS certificate or key: ${(e as Error).message}`);
    }
  }
  let kept: TlsIdentity | null;
  try {
    kept = await store.tls.get();
  } catch (e) {
    // The daemon starts while the store is away: a certificate for this run only.
    if (!(e instanceof SvcError && e.kind === 'store_unavailable')) throw e;
    log.warn(`relay: using a temporary TLS certificate (${e.message})`);
    return make(config.mxHost, config.serviceDomain, clock.now());
  }
  if (kept) return kept;
  const now = clock.now();
  const made = await make(config.mxHost, config.serviceDomain, now);
  return store.tls.saveIfAbsent({ ...made, created_at: now.toISOString() });
}

async function make(mxHost: string, serviceDomain: string, now: Date): Promise<{ cert: string; key: string }> {
  return certificateThread([{ name: 'commonName', value: mxHost }], {
    keySize: 2048,
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 10 * 365 * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [mxHost, serviceDomain, 'localhost'].map((value) => ({ type: 2, value })) }],
  });
}

/**
 * The pair is made in a thread of its own that ends with it: selfsigned's X.509 libraries are over
 * 20 MB of memory, which a daemon would otherwise keep for good to make one certificate per store.
 */
function certificateThread(attrs: unknown[], options: Record<string, unknown>): Promise<{ cert: string; key: string }> {
  const script = `const { parentPort, workerData } = require('node:worker_threads');
import(workerData.url).then((m) => m.generate(workerData.attrs, workerData.options)).then(
  (p) => parentPort.postMessage({ cert: p.cert, key: p.private }),
  (e) => parentPort.postMessage({ error: String((e && e.message) || e) }));`;
  return new Promise((resolve, reject) => {
    const w = new Worker(script, { eval: true, workerData: { url: import.meta.resolve('selfsigned'), attrs, options } });
    w.once('message', (m: { cert: string; key: string } | { error: string }) => {
      if ('error' in m) reject(new Error(`cannot make a TLS certificate: ${m.error}`));
      else resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`cannot make a TLS certificate: its thread ended (${code})`)));
  });
}
