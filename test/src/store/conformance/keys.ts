// Store conformance: keys. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type Backend, fresh, ws, key, rejectsWith } from './fixtures.js';

export function keysConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: keys create, list per workspace, findByHash, revoke once`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const k1 = await store.keys.create(key(a.id));
    const k2 = await store.keys.create(key(b.id));
    assert.deepEqual(
      (await store.keys.listByWorkspace(a.id)).map((k) => k.id),
      [k1.id],
    );
    assert.deepEqual(
      (await store.keys.listByWorkspace(b.id)).map((k) => k.id),
      [k2.id],
    );
    const found = await store.keys.findByHash(k1.hash);
    assert.equal(found?.key.id, k1.id);
    assert.equal(found?.workspace.name, 'acme');
    assert.deepEqual(found?.key.scopes, ['read', 'send']);
    assert.equal(await store.keys.findByHash('f'.repeat(64)), null);
    // Another workspace's key cannot be revoked through this one.
    assert.equal(await store.keys.revoke(a.id, k2.id, '2026-01-02T00:00:00.000Z'), null);
    assert.equal(await store.keys.revoke(a.id, randomUUID(), '2026-01-02T00:00:00.000Z'), null);
    const r1 = await store.keys.revoke(a.id, k1.id, '2026-01-02T00:00:00.000Z');
    assert.equal(r1?.revoked_at, '2026-01-02T00:00:00.000Z');
    const r2 = await store.keys.revoke(a.id, k1.id, '2026-01-03T00:00:00.000Z');
    assert.equal(r2?.revoked_at, '2026-01-02T00:00:00.000Z');
    assert.equal((await store.keys.findByHash(k1.hash))?.key.revoked_at, '2026-01-02T00:00:00.000Z');
    assert.equal((await store.keys.findByHash(k2.hash))?.key.revoked_at, null);
  });

  test(`${backend.name}: a key for an unknown workspace or with a used hash is refused`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    await rejectsWith(store.keys.create(key(randomUUID())), 'not_found');
    const k = await store.keys.create(key(a.id));
    await rejectsWith(store.keys.create(key(a.id, k.hash)), 'conflict');
    assert.equal((await store.keys.listByWorkspace(a.id)).length, 1);
  });
}
