// Store conformance: people (accounts, memberships, sign-in links, sessions). Every backend runs these.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Account, Person } from '../../../../src/model/person.js';
import { type Backend, fresh, ws, rejectsWith } from './fixtures.js';

const account = (email: string, name: string | null = null): Account => ({
  id: randomUUID(),
  email,
  name,
  password_hash: null,
  created_at: '2026-01-01T00:00:00.000Z',
  last_sign_in_at: null,
});
const at = '2026-01-02T00:00:00.000Z';
const joined = (m: Person | { refused: string }): Person => {
  assert.ok(!('refused' in m), `refused: ${JSON.stringify(m)}`);
  return m as Person;
};

export function peopleConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, the last owner (kept); people: members with roles, the seats limit, one account per email across workspaces`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('beta'));
    const ann = joined(await store.people.add(a.id, account('ann@acme.test', 'Ann'), 'owner', 2, at));
    assert.deepEqual(ann, { id: ann.id, email: 'ann@acme.test', name: 'Ann', role: 'owner', created_at: at, last_sign_in_at: null });
    await rejectsWith(store.people.add(a.id, account('ann@acme.test'), 'member', 5, at), 'conflict');
    joined(await store.people.add(a.id, account('bob@acme.test'), 'member', 2, at));
    assert.deepEqual(await store.people.add(a.id, account('cy@acme.test'), 'member', 2, at), {
      refused: 'count_limit',
      kind: 'seats',
      limit: 2,
      used: 2,
    });
    assert.equal(await store.people.account('cy@acme.test'), null, 'a refused member leaves no account');
    await rejectsWith(store.people.add(randomUUID(), account('dee@acme.test'), 'member', null, at), 'not_found');
    // The same person joins another workspace: one account, their name kept.
    const again = joined(await store.people.add(other.id, account('ann@acme.test', 'Someone else'), 'member', null, at));
    assert.equal(again.id, ann.id);
    assert.equal(again.name, 'Ann');
    assert.deepEqual(
      (await store.people.memberships(ann.id)).map((m) => [m.workspace_id, m.role]),
      [
        [a.id, 'owner'],
        [other.id, 'member'],
      ],
    );
    assert.deepEqual(
      (await store.people.list(a.id)).map((m) => [m.email, m.role]),
      [
        ['ann@acme.test', 'owner'],
        ['bob@acme.test', 'member'],
      ],
    );
    assert.equal((await store.people.get(a.id, 'bob@acme.test'))?.role, 'member');
    assert.equal(await store.people.get(other.id, 'bob@acme.test'), null);
    // Roles; the workspace keeps an owner.
    const bob = (await store.people.get(a.id, 'bob@acme.test'))!;
    await rejectsWith(store.people.setRole(a.id, ann.id, 'admin'), 'conflict');
    await rejectsWith(store.people.remove(a.id, ann.id), 'conflict');
    assert.equal((await store.people.setRole(a.id, bob.id, 'owner'))?.role, 'owner');
    assert.equal((await store.people.setRole(a.id, ann.id, 'admin'))?.role, 'admin');
    assert.equal(await store.people.setRole(a.id, randomUUID(), 'admin'), null);
    assert.equal(await store.people.remove(other.id, bob.id), false);
    // Kept across a reopen.
    await store.close();
    const s2 = await backend.open(b);
    t.after(() => s2.close());
    assert.deepEqual(
      (await s2.people.list(a.id)).map((m) => [m.email, m.role]),
      [
        ['ann@acme.test', 'admin'],
        ['bob@acme.test', 'owner'],
      ],
    );
    assert.equal(await s2.people.remove(a.id, ann.id), true);
    assert.deepEqual(
      (await s2.people.list(a.id)).map((m) => m.email),
      ['bob@acme.test'],
    );
    assert.equal((await s2.people.accountById(ann.id))?.email, 'ann@acme.test', 'the account stays (a member elsewhere)');
  });

  test(`${backend.name}: people: sign-in links are used once before they expire; sessions end on sign-out, reset and removal`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const ann = joined(await store.people.add(a.id, account('ann@acme.test'), 'owner', null, at));
    const bob = joined(await store.people.add(a.id, account('bob@acme.test'), 'member', null, at));
    const link = (hash: string, who: string, expires = '2026-01-03T00:00:00.000Z') => ({
      token_hash: hash,
      account_id: who,
      created_at: at,
      expires_at: expires,
    });
    await store.people.issueLink(link('h1', ann.id));
    assert.equal((await store.people.peekLink('h1', at))?.id, ann.id);
    assert.equal((await store.people.peekLink('h1', at))?.id, ann.id, 'a look does not take it');
    assert.equal(await store.people.peekLink('h1', '2026-01-03T00:00:00.000Z'), null, 'expired');
    await store.people.issueLink(link('h2', ann.id));
    assert.equal(await store.people.useLink('h1', at), null, 'a newer link ends the older one');
    assert.equal((await store.people.useLink('h2', at))?.id, ann.id);
    assert.equal(await store.people.useLink('h2', at), null, 'once');
    await store.people.issueLink(link('h3', ann.id, '2026-01-02T12:00:00.000Z'));
    assert.equal(await store.people.useLink('h3', '2026-01-02T12:00:00.000Z'), null, 'expired');
    await rejectsWith(store.people.issueLink(link('h4', randomUUID())), 'not_found');

    assert.equal(await store.people.setPassword(ann.id, '$argon2id$hash'), true);
    assert.equal(await store.people.setPassword(randomUUID(), '$argon2id$hash'), false);
    await store.people.signedIn(ann.id, '2026-01-02T03:04:05.000Z');
    const now = (await store.people.accountById(ann.id))!;
    assert.deepEqual([now.password_hash, now.last_sign_in_at], ['$argon2id$hash', '2026-01-02T03:04:05.000Z']);
    assert.equal((await store.people.get(a.id, 'ann@acme.test'))?.last_sign_in_at, '2026-01-02T03:04:05.000Z');
    const session = (hash: string, who: string) => ({
      token_hash: hash,
      account_id: who,
      created_at: at,
      expires_at: '2026-02-01T00:00:00.000Z',
    });
    await store.people.createSession(session('s1', ann.id));
    await store.people.createSession(session('s2', ann.id));
    await store.people.createSession(session('s3', bob.id));
    assert.equal((await store.people.session('s1', at))?.account_id, ann.id);
    assert.equal(await store.people.session('s1', '2026-02-01T00:00:00.000Z'), null, 'expired');
    await store.people.endSession('s1');
    assert.equal(await store.people.session('s1', at), null);
    await store.people.issueLink(link('h5', ann.id));
    assert.equal(await store.people.endSessions(ann.id), 1);
    assert.equal(await store.people.session('s2', at), null);
    assert.equal(await store.people.useLink('h5', at), null, 'a reset ends unused links too');
    assert.ok(await store.people.session('s3', at), "another person's session stays");
    assert.equal(await store.people.remove(a.id, bob.id), true);
    assert.equal(await store.people.session('s3', at), null, 'removal ends their sessions');
  });
}
