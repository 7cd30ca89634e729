// Store conformance: domains. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type Backend, fresh, ws, domain, check, rejectsWith, created } from './fixtures.js';

export function domainsConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: domains per workspace, the count limit, and one verifying workspace`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const da = await created(store.domains.create(domain(a.id, 'example.com'), 2));
    assert.equal(da.status, 'pending');
    await rejectsWith(store.domains.create(domain(a.id, 'example.com'), 5), 'conflict');
    // The same domain may be pending in another workspace.
    const db = await created(store.domains.create(domain(b.id, 'example.com'), 1));
    await created(store.domains.create(domain(a.id, 'example.org'), 2));
    // At the limit: a refusal of its own, and nothing stored.
    assert.deepEqual(await store.domains.create(domain(a.id, 'example.net'), 2), {
      refused: 'count_limit',
      kind: 'domains',
      limit: 2,
      used: 2,
    });
    await rejectsWith(store.domains.create(domain(randomUUID(), 'x.com'), null), 'not_found');
    assert.deepEqual(
      (await store.domains.listByWorkspace(a.id)).map((d) => d.domain),
      ['example.com', 'example.org'],
    );
    assert.equal((await store.domains.listAll()).length, 3);
    assert.equal((await store.domains.get(a.id, 'example.com'))?.dkim_private_key, da.dkim_private_key);
    assert.equal(await store.domains.get(a.id, 'nope.com'), null);
    assert.equal((await store.domains.byId(da.id))?.domain, 'example.com');
    assert.equal(await store.domains.byId(randomUUID()), null);

    // A check that does not pass records statuses and history, and leaves the domain pending.
    const c1 = await store.domains.saveCheck(db.id, check('2026-01-02T00:00:00.000Z', false));
    assert.equal(c1.status, 'pending');
    assert.equal(c1.records?.[0]?.status, 'Waiting');
    assert.equal(c1.checked_at, '2026-01-02T00:00:00.000Z');
    // The first workspace to pass verifies; the other is refused after that.
    const v = await store.domains.saveCheck(db.id, check('2026-01-03T00:00:00.000Z', true));
    assert.deepEqual([v.status, v.verified_at, v.dkim_verified, v.history.length], ['verified', '2026-01-03T00:00:00.000Z', true, 2]);
    assert.equal(await store.domains.verifiedBy('example.com'), b.id);
    assert.equal(await store.domains.verifiedBy('example.org'), null);
    await rejectsWith(store.domains.saveCheck(da.id, check('2026-01-04T00:00:00.000Z', true)), 'conflict');
    assert.equal((await store.domains.get(a.id, 'example.com'))?.status, 'pending');
    // A verified domain stays verified when a later check fails; history is bounded.
    const later = await store.domains.saveCheck(db.id, check('2026-01-05T00:00:00.000Z', false, 150));
    assert.deepEqual([later.status, later.dkim_verified, later.history.length], ['verified', false, 100]);
    await rejectsWith(store.domains.saveCheck(randomUUID(), check('2026-01-05T00:00:00.000Z', false)), 'not_found');
  });
}
