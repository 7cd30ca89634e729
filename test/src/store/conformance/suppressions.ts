// Store conformance: suppressions. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, fresh, ws, address } from './fixtures.js';

export function suppressionsConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: suppressions: add once, list, find, remove`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const first = await store.suppressions.add({
      workspace_id: a.id,
      address: 'x@y.test',
      reason: 'bounce',
      detail: '550',
      created_at: '2026-01-01T00:00:00.000Z',
    });
    const again = await store.suppressions.add({
      workspace_id: a.id,
      address: 'x@y.test',
      reason: 'manual',
      detail: null,
      created_at: '2026-01-02T00:00:00.000Z',
    });
    assert.deepEqual(again, first);
    await store.suppressions.add({
      workspace_id: a.id,
      address: 'z@y.test',
      reason: 'manual',
      detail: null,
      created_at: '2026-01-03T00:00:00.000Z',
    });
    assert.deepEqual(
      (await store.suppressions.list(a.id)).map((x) => x.address),
      ['x@y.test', 'z@y.test'],
    );
    assert.deepEqual(await store.suppressions.list(b.id), []);
    assert.deepEqual(await store.suppressions.find(b.id, ['x@y.test']), []);
    assert.equal(await store.suppressions.remove(a.id, 'x@y.test'), true);
    assert.equal(await store.suppressions.remove(a.id, 'x@y.test'), false);
    assert.deepEqual(
      (await store.suppressions.find(a.id, ['x@y.test', 'z@y.test'])).map((x) => x.address),
      ['z@y.test'],
    );
  });
}
