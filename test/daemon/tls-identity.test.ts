// Without --tls-cert, a daemon makes a self-signed STARTTLS certificate on its first start (names:
// the MX host, the service domain, localhost), keeps it in the store, and serves the same one after a
// restart; relay and MX present it. With --tls-cert and --tls-key it serves those. Both stores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { startTestDaemon } from '../helpers/daemon.js';
import { TLS_FIXTURE } from '../helpers/tls.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import type { StoreLocation } from '../../src/config.js';

/** The certificate a listener presents after EHLO and STARTTLS. */
async function presented(url: string): Promise<PeerCertificate> {
  const u = new URL(url);
  const plain = netConnect(Number(u.port), u.hostname);
  let buf = '';
  const reply = () =>
    new Promise<string>((resolve, reject) => {
      const on = (d: Buffer) => {
        buf += d.toString();
        const m = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buf);
        if (!m) return;
        plain.off('data', on);
        const r = buf;
        buf = '';
        resolve(r);
      };
      plain.on('data', on);
      plain.once('error', reject);
    });
  assert.match(await reply(), /^220 /);
  plain.write('EHLO client.test\r\n');
  assert.match(await reply(), /STARTTLS/);
  plain.write('STARTTLS\r\n');
  assert.match(await reply(), /^220 /);
  const secure = tlsConnect({ socket: plain, rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => (secure.once('secureConnect', resolve), secure.once('error', reject)));
  const cert = secure.getPeerCertificate();
  secure.destroy();
  return cert;
}

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: a self-signed certificate made on the first start, kept in the store, served by relay and MX after a restart`, async (t) => {
    const store: StoreLocation = backend === 'postgres' ? pgLocation(await migratedSchemaUrl(t)) : { kind: 'file', dir: await tmpDir(t) };
    const env = { SVC_MX_HOST: 'mx.example.test', SVC_SERVICE_DOMAIN: 'svc.example.test' };
    const first = await startTestDaemon(t, { store, env, selfSigned: true });
    const kept = await first.daemon.service.store.tls.get();
    assert.ok(kept, 'the certificate is in the store');
    const made = new X509Certificate(kept.cert);
    assert.equal(made.subjectAltName, 'DNS:mx.example.test, DNS:svc.example.test, DNS:localhost');
    assert.ok(made.checkIssued(made), 'self-signed');
    assert.ok(Date.parse(made.validTo) - Date.now() > 9 * 365 * 86_400_000, 'valid for years');
    const relay = await presented(first.daemon.url('relay'));
    const mx = await presented(first.daemon.url('mx'));
    assert.equal(relay.fingerprint256, made.fingerprint256);
    assert.equal(mx.fingerprint256, made.fingerprint256);
    await first.daemon.close();

    const again = await startTestDaemon(t, { store, env, selfSigned: true });
    assert.equal((await presented(again.daemon.url('relay'))).fingerprint256, made.fingerprint256, 'the same after a restart');
    await again.daemon.close();
  });
}

test('--tls-cert and --tls-key: relay and MX present the operator certificate', async (t) => {
  const d = await startTestDaemon(t);
  const fixture = new X509Certificate(await readFile(TLS_FIXTURE.SVC_TLS_CERT));
  assert.equal((await presented(d.daemon.url('relay'))).fingerprint256, fixture.fingerprint256);
  assert.equal((await presented(d.daemon.url('mx'))).fingerprint256, fixture.fingerprint256);
  assert.equal(await d.daemon.service.store.tls.get(), null, 'nothing made, nothing kept');
});
