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
    assert.deepEqual(
      (await store.workspaces.list()).map((w) => w.name),
      ['acme', 'beta'],
    );
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

  test(`${backend.name}: a trial's warnings are recorded once each, in order; per workspace; after a reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('beta'));
    assert.deepEqual(await store.workspaces.trialWarnings(a.id), { sent: 0, last_at: null });
    assert.equal(await store.workspaces.recordTrialWarning(a.id, 2, '2026-02-01T00:00:00.000Z'), false, 'not before the first');
    assert.equal(await store.workspaces.recordTrialWarning(a.id, 1, '2026-02-01T00:00:00.000Z'), true);
    assert.equal(await store.workspaces.recordTrialWarning(a.id, 1, '2026-02-01T00:05:00.000Z'), false, 'once');
    assert.equal(await store.workspaces.recordTrialWarning(a.id, 2, '2026-02-08T00:00:00.000Z'), true);
    assert.deepEqual(await store.workspaces.trialWarnings(a.id), { sent: 2, last_at: '2026-02-08T00:00:00.000Z' });
    assert.deepEqual(await store.workspaces.trialWarnings(other.id), { sent: 0, last_at: null });
    assert.equal(await store.workspaces.recordTrialWarning(randomUUID(), 1, '2026-02-08T00:00:00.000Z'), false);
    // Two at once: one wins.
    const both = await Promise.all([
      store.workspaces.recordTrialWarning(a.id, 3, '2026-02-14T00:00:00.000Z'),
      store.workspaces.recordTrialWarning(a.id, 3, '2026-02-14T00:00:01.000Z'),
    ]);
    assert.deepEqual(both.filter(Boolean).length, 1);
    assert.deepEqual(await store.workspaces.getByName('acme'), a, 'the workspace itself is unchanged');
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.equal((await again.workspaces.trialWarnings(a.id)).sent, 3);
  });
}
