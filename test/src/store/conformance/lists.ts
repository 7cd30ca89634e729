// Store conformance: newsletter lists and subscribers. Lists with their count; PATCH of only the
// fields sent; subscribers added, found again by email on their list (name updated, status kept),
// paged oldest first by status, found by token, unsubscribed, removed; the contacts quota counting
// distinct addresses across a workspace's lists; a removed list gone with its subscribers at once;
// workspaces kept apart; the same after a reopen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Subscriber, SubscriberStatus } from '../../../../src/model/list.js';
import { type Backend, fresh, list, rejectsWith, sub, ws } from './fixtures.js';

const AT = '2026-01-01T10:00:00.000Z';
const same = { name: '', updated_at: AT };

export function listsConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: subscribers: short ids by a prefix, within their list; removed ones never; the same after a reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const news = await store.lists.create(list(a.id, 'News'));
    const offers = await store.lists.create(list(a.id, 'Offers'));
    const uuid = (head: string, n: number) => `${head}-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const one = sub(news, 'one@rcpt.test', 'active', { id: uuid('abcd1111', 1) });
    const two = sub(news, 'two@rcpt.test', 'active', { id: uuid('abcd2222', 2) });
    const elsewhere = sub(offers, 'one@rcpt.test', 'active', { id: uuid('abcd3333', 3) });
    for (const s of [one, two, elsewhere]) await store.subscribers.upsert(s, same, 100);
    const check = async (s: typeof store, removed: boolean) => {
      const ids = await s.subscribers.idsWithPrefix(a.id, news.id, 'abcd', 10);
      assert.deepEqual(ids.sort(), removed ? [one.id] : [one.id, two.id]);
      assert.deepEqual(await s.subscribers.idsWithPrefix(a.id, news.id, 'abcd1', 10), [one.id]);
      assert.deepEqual(await s.subscribers.idsWithPrefix(a.id, news.id, 'abcd1111-0000', 10), [one.id], 'past the first 8 digits');
      assert.deepEqual(await s.subscribers.idsWithPrefix(a.id, news.id, 'abcd1111-9', 10), []);
      assert.deepEqual(await s.subscribers.idsWithPrefix(a.id, offers.id, 'abcd', 10), [elsewhere.id], 'within its list');
      assert.deepEqual(await s.subscribers.idsWithPrefix('no-such-workspace', news.id, 'abcd', 10), []);
      assert.deepEqual(await s.subscribers.idsWithPrefix(a.id, news.id, 'zzzz', 10), []);
      assert.equal((await s.subscribers.idsWithPrefix(a.id, news.id, '', 1)).length, 1, 'the limit holds');
    };
    await check(store, false);
    assert.equal(await store.subscribers.remove(a.id, news.id, two.id), true);
    await check(store, true);
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    await check(again, true);
  });

  test(`${backend.name}: lists and subscribers: counts, upsert by email, pages by status, tokens, the contacts quota, removal, isolation, reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const news = await store.lists.create(list(a.id, 'News', { from_address: 'hello@acme.test' }));
    const offers = await store.lists.create(list(a.id, 'Offers'));
    const theirs = await store.lists.create(list(other.id, 'Theirs'));
    assert.equal(news.subscriber_count, 0);
    assert.deepEqual(
      (await store.lists.listByWorkspace(a.id)).map((l) => l.name),
      ['News', 'Offers'],
    );
    assert.equal(await store.lists.get(other.id, news.id), null);

    // PATCH: only what is sent.
    const patched = await store.lists.update(
      a.id,
      news.id,
      { description: 'Weekly', reply_to: 'team@acme.test' },
      '2026-01-02T00:00:00.000Z',
    );
    assert.deepEqual(
      { ...patched, subscriber_count: 0 },
      { ...news, description: 'Weekly', reply_to: 'team@acme.test', updated_at: '2026-01-02T00:00:00.000Z', subscriber_count: 0 },
    );
    assert.equal(await store.lists.update(other.id, news.id, { name: 'x' }, AT), null);

    // Subscribers: added; the same email again updates the name (and tags when given), never the status.
    const jane = sub(news, 'jane@rcpt.test', 'active', { name: 'Jane', tags: ['vip'] });
    assert.deepEqual(await store.subscribers.upsert(jane, same, 100), { subscriber: jane, created: true });
    const again = await store.subscribers.upsert(
      sub(news, 'jane@rcpt.test', 'pending'),
      { name: 'Jane D.', updated_at: '2026-01-03T00:00:00.000Z' },
      100,
    );
    assert.deepEqual(again, { subscriber: { ...jane, name: 'Jane D.', updated_at: '2026-01-03T00:00:00.000Z' }, created: false });
    const bob = sub(news, 'bob@rcpt.test', 'pending');
    const carol = sub(news, 'carol@rcpt.test', 'unsubscribed');
    for (const s of [bob, carol]) assert.equal(((await store.subscribers.upsert(s, same, 100)) as { created: boolean }).created, true);
    assert.equal((await store.lists.get(a.id, news.id))!.subscriber_count, 3);
    const page = (status?: SubscriberStatus, offset = 0, limit = 10) => store.subscribers.list(a.id, news.id, { status, offset, limit });
    assert.deepEqual(
      (await page()).data.map((s) => s.email),
      ['jane@rcpt.test', 'bob@rcpt.test', 'carol@rcpt.test'],
    );
    assert.equal((await page()).total, 3);
    assert.deepEqual(await page('pending'), { data: [bob], total: 1 });
    assert.deepEqual(
      (await page(undefined, 1, 1)).data.map((s) => s.email),
      ['bob@rcpt.test'],
    );
    assert.deepEqual(await store.subscribers.byToken(bob.unsubscribe_token), { subscriber: bob, list: 'News' });
    assert.equal(await store.subscribers.byToken('no-such-token'), null);
    assert.deepEqual(await store.subscribers.get(a.id, news.id, bob.id), bob);
    assert.equal(await store.subscribers.get(other.id, news.id, bob.id), null);
    assert.equal(await store.subscribers.get(a.id, offers.id, bob.id), null);

    // Status changes move between pages; the unsubscribed stay unsubscribed when posted again.
    const unsub = await store.subscribers.setStatus(a.id, news.id, bob.id, 'unsubscribed', '2026-01-04T00:00:00.000Z');
    assert.deepEqual(unsub, { ...bob, status: 'unsubscribed', updated_at: '2026-01-04T00:00:00.000Z' });
    assert.deepEqual(
      (await page('unsubscribed')).data.map((s) => s.email),
      ['bob@rcpt.test', 'carol@rcpt.test'],
    );
    assert.equal((await page('pending')).total, 0);
    const back = await store.subscribers.upsert(
      sub(news, 'bob@rcpt.test', 'active'),
      { name: 'Bob', updated_at: '2026-01-05T00:00:00.000Z' },
      100,
    );
    assert.equal((back as { subscriber: Subscriber }).subscriber.status, 'unsubscribed');
    assert.equal(await store.subscribers.setStatus(other.id, news.id, bob.id, 'active', AT), null);

    // The contacts quota counts distinct addresses across the workspace's lists.
    assert.equal(await store.subscribers.contacts(a.id), 3);
    assert.equal(
      ((await store.subscribers.upsert(sub(offers, 'jane@rcpt.test'), same, 3)) as { created: boolean }).created,
      true,
      'an address on another list is no new contact',
    );
    assert.deepEqual(await store.subscribers.upsert(sub(offers, 'dave@rcpt.test'), same, 3), {
      refused: 'count_limit',
      kind: 'contacts',
      limit: 3,
      used: 3,
    });
    assert.equal(((await store.subscribers.upsert(sub(offers, 'dave@rcpt.test'), same, null)) as { created: boolean }).created, true);
    assert.equal(await store.subscribers.contacts(a.id), 4);
    assert.equal(
      ((await store.subscribers.upsert(sub(theirs, 'jane@rcpt.test'), same, 1)) as { created: boolean }).created,
      true,
      'another workspace counts its own',
    );
    await rejectsWith(store.subscribers.upsert(sub({ ...offers, id: randomUUID() }, 'x@rcpt.test'), same, null), 'not_found');

    // Many at once (an import): new ones added, those on the list updated (tags only when given), refused whole past the limit.
    const later = { updated_at: '2026-01-06T00:00:00.000Z' };
    const many = [
      { s: sub(offers, 'jane@rcpt.test'), update: { name: 'J', tags: ['x'], ...later } },
      { s: sub(offers, 'dave@rcpt.test'), update: { name: 'D', ...later } },
      { s: sub(offers, 'erin@rcpt.test', 'active', { name: 'E', tags: ['new'] }), update: { name: 'E', tags: ['new'], ...later } },
      { s: sub(offers, 'frank@rcpt.test', 'active', { name: 'F' }), update: { name: 'F', ...later } },
    ];
    assert.equal(
      await store.subscribers.newContacts(
        a.id,
        many.map((m) => m.s.email),
      ),
      2,
    );
    assert.deepEqual(await store.subscribers.upsertMany(a.id, offers.id, many, 5), {
      refused: 'count_limit',
      kind: 'contacts',
      limit: 5,
      used: 4,
    });
    assert.equal((await store.subscribers.list(a.id, offers.id, { offset: 0, limit: 10 })).total, 2, 'a refused batch writes nothing');
    assert.deepEqual(await store.subscribers.upsertMany(a.id, offers.id, many, 6), { created: 2, updated: 2 });
    const offersPage = (await store.subscribers.list(a.id, offers.id, { offset: 0, limit: 10 })).data;
    assert.deepEqual(
      offersPage.map((x) => [x.email, x.name, x.tags, x.status]),
      [
        ['jane@rcpt.test', 'J', ['x'], 'active'],
        ['dave@rcpt.test', 'D', [], 'active'],
        ['erin@rcpt.test', 'E', ['new'], 'active'],
        ['frank@rcpt.test', 'F', [], 'active'],
      ],
    );
    assert.equal(offersPage[0]!.updated_at, later.updated_at);
    assert.equal(await store.subscribers.contacts(a.id), 6);
    await rejectsWith(store.subscribers.upsertMany(a.id, randomUUID(), many, null), 'not_found');
    for (const x of offersPage.slice(2)) assert.equal(await store.subscribers.remove(a.id, offers.id, x.id), true);

    // Removing one: gone, not counted; an unknown one is false.
    assert.equal(await store.subscribers.remove(a.id, news.id, carol.id), true);
    assert.equal(await store.subscribers.remove(a.id, news.id, carol.id), false);
    assert.equal(await store.subscribers.get(a.id, news.id, carol.id), null);
    assert.equal((await store.lists.get(a.id, news.id))!.subscriber_count, 2);
    assert.equal(await store.subscribers.contacts(a.id), 3);

    // After a reopen: the same.
    await store.close();
    const s2 = await backend.open(b);
    t.after(() => s2.close());
    assert.deepEqual(
      (await s2.subscribers.list(a.id, news.id, { offset: 0, limit: 10 })).data.map((s) => [s.email, s.name, s.status]),
      [
        ['jane@rcpt.test', 'Jane D.', 'active'],
        ['bob@rcpt.test', 'Bob', 'unsubscribed'],
      ],
    );
    assert.equal((await s2.lists.get(a.id, news.id))!.description, 'Weekly');
    assert.equal(await s2.subscribers.contacts(a.id), 3);
    assert.deepEqual((await s2.subscribers.byToken(jane.unsubscribe_token))?.subscriber.id, jane.id);

    // A list removed: gone at once with its subscribers (the contacts they held too); the other list stays.
    assert.equal(await s2.lists.remove(other.id, news.id), false);
    assert.equal(await s2.lists.remove(a.id, news.id), true);
    assert.equal(await s2.lists.get(a.id, news.id), null);
    assert.equal(await s2.subscribers.byToken(jane.unsubscribe_token), null);
    assert.deepEqual(
      (await s2.lists.listByWorkspace(a.id)).map((l) => l.name),
      ['Offers'],
    );
    assert.equal(await s2.subscribers.contacts(a.id), 2);
    await s2.lists.sweep();
    assert.equal(await s2.lists.remove(a.id, news.id), false);
    assert.equal((await s2.lists.get(a.id, offers.id))!.subscriber_count, 2);
  });
}
