// The store conformance suite (DESIGN.md "One store interface"): the same tests against every
// backend. `backing` makes a fresh, empty store location; `open` opens a Store on it (twice, to
// prove that what was written is there after a reopen).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Address, ApiKey, Domain, DomainCheck, Store, Workspace } from '../../../src/store/types.js';
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

const domain = (workspace_id: string, name: string): Domain => ({
  id: randomUUID(),
  workspace_id,
  domain: name,
  status: 'pending',
  token: 'tok-' + name,
  dkim_public_key: 'PUB',
  dkim_private_key: '-----BEGIN PRIVATE KEY-----\nX\n-----END PRIVATE KEY-----\n',
  legacy: false,
  dkim_verified: false,
  records: null,
  history: [],
  created_at: '2026-01-01T00:00:00.000Z',
  verified_at: null,
  checked_at: null,
});
const address = (workspace_id: string, domain_id: string, addr: string): Address => ({
  id: randomUUID(),
  workspace_id,
  domain_id,
  address: addr,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
});
const check = (at: string, verify: boolean, changes = 1): DomainCheck => ({
  records: [{ purpose: 'dkim', status: verify ? 'Verified' : 'Waiting', note: null, value: null, checked_at: at }],
  changes: Array.from({ length: changes }, () => ({ at, purpose: 'dkim' as const, from: null, to: verify ? ('Verified' as const) : ('Waiting' as const), note: null })),
  dkim_verified: verify,
  checked_at: at,
  verify,
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

  test(`${backend.name}: domains per workspace, the count limit, and one verifying workspace`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const da = await store.domains.create(domain(a.id, 'example.com'), 2);
    assert.equal(da.status, 'pending');
    await rejectsWith(store.domains.create(domain(a.id, 'example.com'), 5), 'conflict');
    // The same domain may be pending in another workspace.
    const db = await store.domains.create(domain(b.id, 'example.com'), 1);
    await store.domains.create(domain(a.id, 'example.org'), 2);
    await assert.rejects(store.domains.create(domain(a.id, 'example.net'), 2), (e) => isSvcError(e) && e.kind === 'plan_limit' && e.details?.limit === 2 && e.details?.used === 2);
    await rejectsWith(store.domains.create(domain(randomUUID(), 'x.com'), null), 'not_found');
    assert.deepEqual((await store.domains.listByWorkspace(a.id)).map((d) => d.domain), ['example.com', 'example.org']);
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

  test(`${backend.name}: addresses on a workspace's domains, limits, status, removal with the domain`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const d = await store.domains.create(domain(a.id, 'example.com'), null);
    const hello = await store.addresses.create(address(a.id, d.id, 'hello@example.com'), 2);
    await rejectsWith(store.addresses.create(address(a.id, d.id, 'hello@example.com'), 5), 'conflict');
    await store.addresses.create(address(a.id, d.id, 'support@example.com'), 2);
    await assert.rejects(store.addresses.create(address(a.id, d.id, 'x@example.com'), 2), (e) => isSvcError(e) && e.kind === 'plan_limit');
    // Another workspace cannot hang an address on this workspace's domain.
    await rejectsWith(store.addresses.create(address(b.id, d.id, 'y@example.com'), null), 'not_found');
    assert.deepEqual((await store.addresses.listByWorkspace(a.id)).map((x) => x.address), ['hello@example.com', 'support@example.com']);
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
