// The STARTTLS identity of the relay (and later the MX): the operator's --tls-cert/--tls-key, else a
// self-signed pair made once and kept with the store, so every restart (and every daemon on one
// Postgres) presents the same certificate.
import { readFile } from 'node:fs/promises';
import { generate } from 'selfsigned';
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
  const pems = await generate([{ name: 'commonName', value: mxHost }], {
    keySize: 2048,
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 10 * 365 * 86_400_000),
    extensions: [{ name: 'subjectAltName', altNames: [mxHost, serviceDomain, 'localhost'].map((value) => ({ type: 2, value })) }],
  });
  return { cert: pems.cert, key: pems.private };
}
