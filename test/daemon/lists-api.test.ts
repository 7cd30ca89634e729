// Newsletter lists and subscribers over REST (spec.md "Lists", "Subscribers", "Subscriber status"):
// every endpoint's statuses, fields and error texts; scopes (a 403 names newsletter); PATCH of only
// the fields sent; the sender rule; emails lower-cased and validated; the same email again; the
// unsubscribed staying unsubscribed and suppressed; pages by status; the contacts quota's 402;
// workspaces apart. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: lists and subscribers over REST: fields, errors, scopes, upserts, unsubscribe, pages, the contacts quota, isolation`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { plan: 'trial', ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const nl = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
    const sendOnly = (await service.keys.create(s.ws, { scopes: 'send' })).key;
    const call = (method: string, path: string, body?: unknown, key = nl) => s.call(method, path, body, key);

    // Lists: the name is required; the sender must be able to send; reply_to empty when unset.
    assert.deepEqual(await call('POST', '/api/v2/lists', { description: 'x' }), {
      status: 400,
      body: { error: 'name is required' },
      headers: (await call('POST', '/api/v2/lists', {})).headers,
    });
    assert.equal((await call('POST', '/api/v2/lists', { name: 42 })).status, 400);
    const badSender = await call('POST', '/api/v2/lists', { name: 'News', from_address: 'nobody@acme.test' });
    assert.equal(badSender.status, 400);
    assert.match(
      badSender.body.error,
      /^from_address 'nobody@acme\.test' is not an active address on a verified domain of this workspace: The domain acme\.test is verified: add the address\.$/,
    );
    assert.equal((await call('POST', '/api/v2/lists', { name: 'News' }, s.key)).body.error, 'missing permission: newsletter');
    const created = await call('POST', '/api/v2/lists', { name: 'News', from_address: 'Hello@acme.test', from_name: 'Acme' });
    assert.equal(created.status, 201);
    const list = created.body;
    assert.deepEqual(Object.keys(list).sort(), [
      'created_at',
      'description',
      'double_opt_in',
      'from_address',
      'from_name',
      'id',
      'name',
      'reply_to',
      'subscriber_count',
      'updated_at',
    ]);
    assert.deepEqual(
      { ...list, id: 'x', created_at: 'x', updated_at: 'x' },
      {
        id: 'x',
        name: 'News',
        description: '',
        from_name: 'Acme',
        from_address: 'hello@acme.test',
        reply_to: '',
        double_opt_in: false,
        subscriber_count: 0,
        created_at: 'x',
        updated_at: 'x',
      },
    );
    // Reading takes read or newsletter; a 403 names newsletter.
    assert.equal((await call('GET', '/api/v2/lists', undefined, s.key)).body.data.length, 1);
    assert.deepEqual(await call('GET', `/api/v2/lists/${list.id}`, undefined, sendOnly).then((r) => [r.status, r.body.error]), [
      403,
      'missing permission: newsletter',
    ]);
    assert.deepEqual(await call('GET', '/api/v2/lists/nope').then((r) => [r.status, r.body.error]), [404, 'list not found']);
    // PATCH: only the fields sent.
    const patched = (await call('PATCH', `/api/v2/lists/${list.id}`, { reply_to: 'team@acme.test' })).body;
    assert.deepEqual({ ...patched, updated_at: 'x' }, { ...list, reply_to: 'team@acme.test', updated_at: 'x' });
    assert.equal((await call('PATCH', `/api/v2/lists/${list.id}`, { name: '' })).body.error, 'name is required');
    assert.equal((await call('PATCH', '/api/v2/lists/nope', { name: 'x' })).status, 404);

    // Subscribers.
    const subs = `/api/v2/lists/${list.id}/subscribers`;
    assert.deepEqual(await call('POST', subs, { email: 'not-an-email' }).then((r) => [r.status, r.body.error]), [
      400,
      'invalid email: expected local@domain',
    ]);
    assert.equal(
      (await call('POST', subs, { email: `${'a'.repeat(40_000)}@x.test` })).body.error,
      'invalid email: longer than 254 characters',
    );
    const jane = await call('POST', subs, { email: ' Jane@Rcpt.TEST ', name: 'Jane', tags: ['vip', 'vip', 'beta'] });
    assert.equal(jane.status, 201);
    assert.deepEqual(Object.keys(jane.body).sort(), [
      'created_at',
      'email',
      'id',
      'list_id',
      'name',
      'status',
      'tags',
      'unsubscribe_token',
      'updated_at',
    ]);
    assert.deepEqual(
      [jane.body.email, jane.body.status, jane.body.tags, jane.body.list_id],
      ['jane@rcpt.test', 'active', ['vip', 'beta'], list.id],
    );
    assert.match(jane.body.unsubscribe_token, /^[A-Za-z0-9_-]{43}$/);
    const again = await call('POST', subs, { email: 'jane@rcpt.test', name: 'Jane D.' });
    assert.deepEqual([again.status, again.body.id, again.body.name, again.body.tags], [201, jane.body.id, 'Jane D.', ['vip', 'beta']]);
    const bob = (await call('POST', subs, { email: 'bob@rcpt.test' })).body;
    // Unsubscribe: 200 with the status; suppressed; posted again it stays unsubscribed.
    const unsub = await call('POST', `${subs}/${bob.id}/unsubscribe`);
    assert.deepEqual([unsub.status, unsub.body.status], [200, 'unsubscribed']);
    assert.deepEqual(
      (await service.store.suppressions.find(s.ws.id, ['bob@rcpt.test'])).map((x) => x.reason),
      ['unsubscribe'],
    );
    assert.deepEqual(await call('POST', subs, { email: 'bob@rcpt.test', name: 'Bob' }).then((r) => [r.body.status, r.body.name]), [
      'unsubscribed',
      'Bob',
    ]);
    assert.equal((await call('POST', `${subs}/nope/unsubscribe`)).body.error, 'subscriber not found');
    // Pages: oldest first, by status, with the total; the maximum page is 1,000.
    assert.deepEqual(
      await call('GET', subs, undefined, s.key).then((r) => [r.body.total, r.body.data.map((x: { email: string }) => x.email)]),
      [2, ['jane@rcpt.test', 'bob@rcpt.test']],
    );
    assert.deepEqual(await call('GET', `${subs}?status=unsubscribed`).then((r) => [r.body.total, r.body.data.length]), [1, 1]);
    assert.deepEqual(await call('GET', `${subs}?limit=1&offset=1`).then((r) => r.body.data.map((x: { email: string }) => x.email)), [
      'bob@rcpt.test',
    ]);
    assert.equal((await call('GET', `${subs}?status=gone`)).body.error, 'invalid query: status must be pending, active, unsubscribed');
    assert.equal((await call('GET', `${subs}?limit=0`)).status, 400);
    assert.equal((await call('GET', `/api/v2/lists/${list.id}`)).body.subscriber_count, 2);

    // The contacts quota (trial: 100 distinct addresses): the 101st answers 402 with the quota body.
    for (let i = 0; i < 98; i++) await service.lists.subscribe(s.ws, list.id, { email: `fill${i}@rcpt.test` });
    const over = await call('POST', subs, { email: 'one-too-many@rcpt.test' });
    assert.equal(over.status, 402);
    assert.deepEqual(
      { ...over.body, error: 'x' },
      { error: 'x', code: 'quota_exceeded', kind: 'contacts', limit: 100, used: 100, upgrade_url: over.body.upgrade_url },
    );
    assert.equal(
      (await call('POST', subs, { email: 'jane@rcpt.test', name: 'J' })).status,
      201,
      'an address already on the list is no new contact',
    );

    // Deleting a subscriber, then the list.
    assert.equal((await call('DELETE', `${subs}/${jane.body.id}`)).status, 204);
    assert.deepEqual(await call('DELETE', `${subs}/${jane.body.id}`).then((r) => [r.status, r.body.error]), [404, 'subscriber not found']);
    // Another workspace sees none of it.
    const other = await service.workspaces.create('other', 'scale');
    const theirs = (await service.keys.create(other, { scopes: 'newsletter' })).key;
    assert.equal((await call('GET', `/api/v2/lists/${list.id}`, undefined, theirs)).status, 404);
    assert.equal((await call('DELETE', `/api/v2/lists/${list.id}`, undefined, theirs)).status, 404);
    assert.deepEqual((await call('GET', '/api/v2/lists', undefined, theirs)).body, { data: [] });
    assert.equal((await call('DELETE', `/api/v2/lists/${list.id}`)).status, 204);
    assert.equal((await call('GET', `/api/v2/lists/${list.id}`)).status, 404);
    assert.equal((await call('GET', subs)).status, 404);
    assert.deepEqual((await call('GET', '/api/v2/lists')).body, { data: [] });
  });
}
