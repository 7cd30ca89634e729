// The store conformance suite (DESIGN.md "One store interface"): the same tests against every
// backend. `backing` makes a fresh, empty store location; `open` opens a Store on it (twice, to
// prove that what was written is there after a reopen).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ApiKey, Store, Workspace } from '../../../src/store/types.js';
import { isSvcError } from '../../../src/errors.js';

export interface Backend<B> {
  name: string;
  backing(t: { after(fn: () => unknown): void }): Promise<B>;
  open(b: B): Promise<Store>;
}

const ws = (name: string): Workspace => ({ id: randomUUID(), name, plan: 'trial', created_at: '2026-01-01T00:00:00.000Z' });
const key = (workspace_id: string, hash = randomUUID().replace(/-/g, '').padEnd(64, '0')): ApiKey => ({
  id: randomUUID(),
  workspace_id,
  name: 'k',
  scopes: ['read', 'send'],
  prefix: 'svc_12345678',
  hash,
  created_at: '2026-01-01T00:00:00.000Z',
  revoked_at: null,
});

const rejectsWith = (p: Promise<unknown>, kind: string) => assert.rejects(p, (e) => isSvcError(e) && e.kind === kind);

export function storeConformance<B>(backend: Backend<B>): void {
  const fresh = async (t: { after(fn: () => unknown): void }) => {
    const b = await backend.backing(t);
    const store = await backend.open(b);
    t.after(() => store.close());
    return { b, store };
  };

  test(`${backend.name}: workspaces create, list, getByName, setPlan`, async (t) => {
    const { store } = await fresh(t);
    assert.deepEqual(await store.workspaces.list(), []);
    const a = await store.workspaces.create(ws('acme'));
    await store.workspaces.create(ws('beta'));
    assert.equal(a.name, 'acme');
    assert.deepEqual((await store.workspaces.list()).map((w) => w.name), ['acme', 'beta']);
    assert.deepEqual(await store.workspaces.getByName('acme'), a);
    assert.equal(await store.workspaces.getByName('nope'), null);
    const upd = await store.workspaces.setPlan(a.id, 'pro');
    assert.equal(upd?.plan, 'pro');
    assert.equal((await store.workspaces.getByName('acme'))?.plan, 'pro');
    assert.equal(await store.workspaces.setPlan(randomUUID(), 'pro'), null);
  });

  test(`${backend.name}: a taken workspace name is a conflict and changes nothing`, async (t) => {
    const { store } = await fresh(t);
    await store.workspaces.create(ws('acme'));
    await rejectsWith(store.workspaces.create(ws('acme')), 'conflict');
    assert.equal((await store.workspaces.list()).length, 1);
  });

  test(`${backend.name}: keys create, list per workspace, findByHash, revoke once`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const k1 = await store.keys.create(key(a.id));
    const k2 = await store.keys.create(key(b.id));
    assert.deepEqual((await store.keys.listByWorkspace(a.id)).map((k) => k.id), [k1.id]);
    assert.deepEqual((await store.keys.listByWorkspace(b.id)).map((k) => k.id), [k2.id]);
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
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    await rejectsWith(store.keys.create(key(randomUUID())), 'not_found');
    const k = await store.keys.create(key(a.id));
    await rejectsWith(store.keys.create(key(a.id, k.hash)), 'conflict');
    assert.equal((await store.keys.listByWorkspace(a.id)).length, 1);
  });

  test(`${backend.name}: results are copies, not the store's own records`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const k = await store.keys.create(key(a.id));
    a.plan = 'scale';
    k.scopes.push('*');
    (await store.keys.findByHash(k.hash))!.key.scopes.push('*');
    assert.equal((await store.workspaces.getByName('acme'))?.plan, 'trial');
    assert.deepEqual((await store.keys.findByHash(k.hash))?.key.scopes, ['read', 'send']);
  });

  test(`${backend.name}: what was written is there after a reopen`, async (t) => {
    const { b, store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const k = await store.keys.create(key(a.id));
    await store.keys.revoke(a.id, k.id, '2026-01-02T00:00:00.000Z');
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.deepEqual(await again.workspaces.list(), [a]);
    assert.equal((await again.keys.findByHash(k.hash))?.key.revoked_at, '2026-01-02T00:00:00.000Z');
    await again.health();
  });
}
