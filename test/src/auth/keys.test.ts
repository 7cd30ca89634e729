import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { hashKey, KEY_PATTERN, keyService } from '../../../src/auth/keys.js';
import { parseScopes, hasScope, requireScope } from '../../../src/auth/scopes.js';
import { authenticateKey, bearerToken } from '../../../src/auth/authenticate.js';
import { isSvcError } from '../../../src/errors.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../../src/store/types.js';
import { ManualClock, systemRandom } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { silentLog } from '../../../src/log.js';
import { tmpDir } from '../../helpers/tmp.js';

const kind = (k: string) => (e: unknown) => isSvcError(e) && e.kind === k;

test('scopes: parsed in the spec order, unknown ones refused, * grants everything', () => {
  assert.deepEqual(parseScopes('read,send'), ['send', 'read']);
  assert.deepEqual(parseScopes(' newsletter , read ,read'), ['read', 'newsletter']);
  assert.throws(() => parseScopes('send,admin'), /unknown scope 'admin'/);
  assert.throws(() => parseScopes(''), /must not be empty/);
  assert.ok(hasScope(['*'], 'newsletter'));
  assert.ok(!hasScope(['read'], 'send'));
});

test('a missing scope names the one the spec says', () => {
  const readOrNewsletter = { anyOf: ['read', 'newsletter'] as const, named: 'newsletter' as const };
  const readOrSend = { anyOf: ['read', 'send'] as const, named: 'read' as const };
  assert.throws(() => requireScope(['send'], readOrNewsletter), { message: 'missing permission: newsletter' });
  assert.throws(() => requireScope(['newsletter'], readOrSend), { message: 'missing permission: read' });
  assert.doesNotThrow(() => requireScope(['read'], readOrNewsletter));
  assert.doesNotThrow(() => requireScope(['send'], readOrSend));
  assert.doesNotThrow(() => requireScope(['*'], readOrSend));
});

test('bearer parsing: only "Bearer <token>"', () => {
  assert.equal(bearerToken('Bearer svc_abc'), 'svc_abc');
  for (const h of [undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'bearer svc_abc', 'Bearer a b', 'svc_abc']) {
    assert.throws(() => bearerToken(h), kind('missing_bearer'), String(h));
  }
});

async function setup(t: { after(fn: () => unknown): void }) {
  const store = await SqliteStore.open(await tmpDir(t), 'admin');
  t.after(() => store.close());
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const keys = keyService({ store, clock, random: systemRandom, config: loadConfig({}, {}), log: silentLog });
  const ws = await store.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'trial', created_at: clock.now().toISOString() });
  return { store, keys, ws, clock };
}

test('a new key is svc_ + 48 lowercase hex, stored only as its SHA-256', async (t) => {
  const { store, keys, ws } = await setup(t);
  const k = await keys.create(ws);
  assert.match(k.key, KEY_PATTERN);
  assert.deepEqual(k.scopes, ['send', 'read']);
  assert.equal(k.prefix, k.key.slice(0, 12));
  const stored = (await store.keys.listByWorkspace(ws.id))[0]!;
  assert.equal(stored.hash, createHash('sha256').update(k.key).digest('hex'));
  assert.ok(!JSON.stringify(stored).includes(k.key));
  assert.ok(!('hash' in (await keys.list(ws))[0]!));
  const other = await keys.create(ws);
  assert.notEqual(other.key, k.key);
});

test('authentication: valid, unknown, revoked, malformed and unprefixed keys', async (t) => {
  const { store, keys, ws } = await setup(t);
  const k = await keys.create(ws, { scopes: 'newsletter' });
  const p = await authenticateKey(store, k.key);
  assert.equal(p.workspace.name, 'acme');
  assert.deepEqual(p.scopes, ['newsletter']);
  await assert.rejects(authenticateKey(store, 'svc_' + 'a'.repeat(48)), kind('invalid_key'));
  await assert.rejects(authenticateKey(store, 'svc_short'), kind('invalid_key'));
  await assert.rejects(authenticateKey(store, k.key.toUpperCase().replace('SVC_', 'svc_')), kind('invalid_key'));
  await assert.rejects(authenticateKey(store, 'sk_' + 'a'.repeat(48)), kind('invalid_key_format'));
  await keys.revoke(ws, k.id);
  await assert.rejects(authenticateKey(store, k.key), kind('invalid_key'));
  await assert.rejects(keys.revoke(ws, randomUUID()), kind('not_found'));
});

test('unknown, revoked and malformed-but-prefixed keys take one path: one lookup by hash each', async (t) => {
  const { store, keys, ws } = await setup(t);
  const revoked = await keys.create(ws);
  await keys.revoke(ws, revoked.id);
  const lookups: string[] = [];
  const spy: Store = Object.assign(Object.create(store) as Store, {
    keys: { ...store.keys, findByHash: (h: string) => (lookups.push(h), store.keys.findByHash(h)) },
  });
  for (const token of ['svc_' + '0'.repeat(48), revoked.key, 'svc_not-hex', 'svc_']) {
    lookups.length = 0;
    await assert.rejects(authenticateKey(spy, token), { message: 'invalid or revoked api key' });
    assert.deepEqual(lookups, [hashKey(token)], token);
  }
});

test('key names and scopes are checked before anything is stored', async (t) => {
  const { store, keys, ws } = await setup(t);
  await assert.rejects(keys.create(ws, { name: 'a\r\nb' }), kind('invalid_argument'));
  await assert.rejects(keys.create(ws, { scopes: 'root' }), kind('usage'));
  assert.deepEqual(await store.keys.listByWorkspace(ws.id), []);
});
