// Store conformance: workspaces. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type Backend, fresh, ws, key, rejectsWith } from './fixtures.js';

export function workspacesConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: workspaces create, list, getByName, setPlan`, async (t) => {
    const { store } = await fresh(backend, t);
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
    const { store } = await fresh(backend, t);
    await store.workspaces.create(ws('acme'));
    await rejectsWith(store.workspaces.create(ws('acme')), 'conflict');
    assert.equal((await store.workspaces.list()).length, 1);
  });


  test(`${backend.name}: results are copies, not the store's own records`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const k = await store.keys.create(key(a.id));
    a.plan = 'scale';
    k.scopes.push('*');
    (await store.keys.findByHash(k.hash))!.key.scopes.push('*');
    assert.equal((await store.workspaces.getByName('acme'))?.plan, 'trial');
    assert.deepEqual((await store.keys.findByHash(k.hash))?.key.scopes, ['read', 'send']);
  });

}
