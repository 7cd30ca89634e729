// DKIM private keys at rest in the file store: sealed in svc.json with the operator's key, opened
// as they are read; a store holding sealed keys refuses to open without the key or with another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SqliteStore } from '../../../../src/store/sqlite/sqlite-store.js';
import { isSvcError } from '../../../../src/errors.js';
import { tmpDir } from '../../../helpers/tmp.js';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n';
const domain = (workspace_id: string, name: string) => ({
  id: randomUUID(),
  workspace_id,
  domain: name,
  status: 'pending' as const,
  token: 't',
  dkim_public_key: 'P',
  dkim_private_key: PEM,
  legacy: false,
  dkim_verified: false,
  records: null,
  history: [],
  created_at: '2026-01-01T00:00:00.000Z',
  verified_at: null,
  checked_at: null,
});

test('file store: DKIM keys sealed in svc.json with the key, opened on reading; plaintext ones sealed at open; no key or another key is refused', async (t) => {
  const dir = await tmpDir(t);
  const key = randomBytes(32);
  // A store written before it had a key: the key is in plaintext.
  const before = await SqliteStore.open(dir, 'admin');
  const ws = await before.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'scale', created_at: '2026-01-01T00:00:00.000Z' });
  await before.domains.create(domain(ws.id, 'old.test'), null);
  await before.close();
  assert.ok((await readFile(join(dir, 'svc.json'), 'utf8')).includes('MIIEsecret'));

  const store = await SqliteStore.open(dir, 'admin', { encryptionKey: key });
  const added = await store.domains.create(domain(ws.id, 'new.test'), null);
  assert.ok(!('refused' in added) && added.dkim_private_key === PEM);
  for (const name of ['old.test', 'new.test']) assert.equal((await store.domains.get(ws.id, name))?.dkim_private_key, PEM, name);
  assert.deepEqual(
    (await store.domains.listAll()).map((d) => d.dkim_private_key),
    [PEM, PEM],
  );
  await store.close();
  const raw = await readFile(join(dir, 'svc.json'), 'utf8');
  assert.ok(!raw.includes('MIIEsecret') && !raw.includes('PRIVATE KEY'), 'no key in plaintext on disk');
  assert.equal(raw.match(/enc:v1:/g)?.length, 2);

  await assert.rejects(
    SqliteStore.open(dir, 'admin'),
    (e) => isSvcError(e) && e.kind === 'store_locked' && /encrypted: set SVC_ENCRYPTION_KEY/.test(e.message),
  );
  await assert.rejects(
    SqliteStore.open(dir, 'admin', { encryptionKey: randomBytes(32) }),
    (e) => isSvcError(e) && e.kind === 'store_locked' && /another key/.test(e.message),
  );
  const again = await SqliteStore.open(dir, 'admin', { encryptionKey: key });
  assert.equal((await again.domains.get(ws.id, 'old.test'))?.dkim_private_key, PEM);
  await again.close();
});

/** The sealed value with one character of its ciphertext changed: the right key, damaged data. */
const damage = (sealed: string) => sealed.slice(0, -3) + (sealed.at(-3) === 'A' ? 'B' : 'A') + sealed.slice(-2);

test('file store: one damaged DKIM ciphertext disables that domain only: the store opens, the others read whole, the damaged one reads as not signing', async (t) => {
  const dir = await tmpDir(t);
  const key = randomBytes(32);
  const store = await SqliteStore.open(dir, 'admin', { encryptionKey: key });
  const ws = await store.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'scale', created_at: '2026-01-01T00:00:00.000Z' });
  await store.domains.create({ ...domain(ws.id, 'bad.test'), dkim_verified: true }, null);
  await store.domains.create({ ...domain(ws.id, 'good.test'), dkim_verified: true }, null);
  await store.close();
  const path = join(dir, 'svc.json');
  const doc = JSON.parse(await readFile(path, 'utf8'));
  const bad = doc.domains.find((d: { domain: string }) => d.domain === 'bad.test');
  bad.dkim_private_key = damage(bad.dkim_private_key);
  await writeFile(path, JSON.stringify(doc));

  const again = await SqliteStore.open(dir, 'admin', { encryptionKey: key });
  t.after(() => again.close());
  const good = await again.domains.get(ws.id, 'good.test');
  assert.deepEqual([good?.dkim_private_key, good?.key_damaged], [PEM, undefined]);
  const broken = await again.domains.get(ws.id, 'bad.test');
  assert.deepEqual([broken?.dkim_private_key, broken?.dkim_verified, broken?.key_damaged], ['', false, true]);
  assert.equal((await again.domains.listAll()).length, 2);
  // Another key is still refused, damaged value or not.
  await again.close();
  await assert.rejects(
    SqliteStore.open(dir, 'admin', { encryptionKey: randomBytes(32) }),
    (e) => isSvcError(e) && e.kind === 'store_locked',
  );
});

test('file store: the STARTTLS private key and the tracked-link key are sealed with the operator key too (plaintext ones at open), read back whole; without the key the store is refused', async (t) => {
  const dir = await tmpDir(t);
  const key = randomBytes(32);
  const TLS_KEY = '-----BEGIN PRIVATE KEY-----\nTLSsecret\n-----END PRIVATE KEY-----\n';
  // Written before the store had a key: both in plaintext.
  const before = await SqliteStore.open(dir, 'admin');
  await before.tls.saveIfAbsent({ cert: 'CERT', key: TLS_KEY, created_at: '2026-01-01T00:00:00.000Z' });
  assert.equal(await before.secrets.keep('tracked-links', 'LINKsecret'), 'LINKsecret');
  await before.close();
  assert.match(await readFile(join(dir, 'svc.json'), 'utf8'), /TLSsecret[\s\S]*LINKsecret|LINKsecret[\s\S]*TLSsecret/);

  const store = await SqliteStore.open(dir, 'admin', { encryptionKey: key });
  assert.equal((await store.tls.get())?.key, TLS_KEY);
  assert.equal(await store.secrets.keep('tracked-links', 'another'), 'LINKsecret');
  assert.equal(await store.secrets.keep('fresh', 'FRESHsecret'), 'FRESHsecret');
  await store.close();
  const raw = await readFile(join(dir, 'svc.json'), 'utf8');
  for (const secret of ['TLSsecret', 'LINKsecret', 'FRESHsecret'])
    assert.ok(!raw.includes(secret), `${secret} is not on disk in plaintext`);
  await assert.rejects(
    SqliteStore.open(dir, 'admin'),
    (e) =>
      isSvcError(e) &&
      e.kind === 'store_locked' &&
      /STARTTLS private key and the tracked-link key of this store are encrypted/.test(e.message),
  );
  const again = await SqliteStore.open(dir, 'admin', { encryptionKey: key });
  t.after(() => again.close());
  assert.equal(await again.secrets.keep('fresh', 'x'), 'FRESHsecret');
});
