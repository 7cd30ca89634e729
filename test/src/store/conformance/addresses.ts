// Store conformance: addresses. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, fresh, ws, domain, address, rejectsWith, created } from './fixtures.js';

export function addressesConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: addresses on a workspace's domains, limits, status, removal with the domain`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const d = await created(store.domains.create(domain(a.id, 'example.com'), null));
    const hello = await created(store.addresses.create(address(a.id, d.id, 'hello@example.com'), 2));
    await rejectsWith(store.addresses.create(address(a.id, d.id, 'hello@example.com'), 5), 'conflict');
    await created(store.addresses.create(address(a.id, d.id, 'support@example.com'), 2));
    assert.deepEqual(await store.addresses.create(address(a.id, d.id, 'x@example.com'), 2), {
      refused: 'count_limit',
      kind: 'addresses',
      limit: 2,
      used: 2,
    });
    // Another workspace cannot hang an address on this workspace's domain.
    await rejectsWith(store.addresses.create(address(b.id, d.id, 'y@example.com'), null), 'not_found');
    assert.deepEqual(
      (await store.addresses.listByWorkspace(a.id)).map((x) => x.address),
      ['hello@example.com', 'support@example.com'],
    );
    assert.equal((await store.addresses.get(a.id, 'hello@example.com'))?.id, hello.id);
    assert.equal(await store.addresses.get(b.id, 'hello@example.com'), null);
    assert.equal((await store.addresses.setStatus(a.id, hello.id, 'disabled'))?.status, 'disabled');
    assert.equal(await store.addresses.setStatus(b.id, hello.id, 'active'), null);
    assert.equal(await store.addresses.remove(b.id, hello.id), false);
    assert.equal(await store.addresses.remove(a.id, hello.id), true);
    assert.equal(await store.addresses.remove(a.id, hello.id), false);
    assert.equal(await store.domains.remove(b.id, d.id), false);
    assert.equal(await store.domains.remove(a.id, d.id), true);
    assert.deepEqual(await store.addresses.listByWorkspace(a.id), []);
    assert.deepEqual(await store.domains.listByWorkspace(a.id), []);
  });

  test(`${backend.name}: an address in every workspace (the MX's RCPT look-up) follows each change`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const da = await created(store.domains.create(domain(a.id, 'example.com'), null));
    const db = await created(store.domains.create(domain(b.id, 'example.com'), null));
    const seen = async (address: string) =>
      (await store.addresses.everywhere(address)).map((x) => `${x.workspace_id === a.id ? 'a' : 'b'}:${x.status}`).sort();
    assert.deepEqual(await seen('hello@example.com'), []);
    const ha = await created(store.addresses.create(address(a.id, da.id, 'hello@example.com'), null));
    assert.deepEqual(await seen('hello@example.com'), ['a:active']);
    await created(store.addresses.create(address(b.id, db.id, 'hello@example.com'), null));
    await created(store.addresses.create(address(b.id, db.id, 'other@example.com'), null));
    assert.deepEqual(await seen('hello@example.com'), ['a:active', 'b:active']);
    await store.addresses.setStatus(a.id, ha.id, 'disabled');
    assert.deepEqual(await seen('hello@example.com'), ['a:disabled', 'b:active']);
    // A copy: changing what was returned changes nothing stored.
    (await store.addresses.everywhere('hello@example.com'))[0]!.status = 'active';
    assert.deepEqual(await seen('hello@example.com'), ['a:disabled', 'b:active']);
    assert.equal(await store.addresses.remove(a.id, ha.id), true);
    assert.deepEqual(await seen('hello@example.com'), ['b:active']);
    assert.equal(await store.domains.remove(b.id, db.id), true);
    assert.deepEqual(await seen('hello@example.com'), []);
    assert.deepEqual(await seen('other@example.com'), []);
  });
}
