// Double opt-in: a double opt-in list needs a sender; a subscriber posted to it is
// pending and gets one confirmation email through the one pipeline (caught at the sink, DKIM-signed
// like all mail), none again within an hour; its link's GET asks, its POST makes the subscriber
// active; an altered link is 404, and a link past its 7 days says it expired. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { verifyDkim } from '../helpers/sink.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { confirmCode, readConfirmCode } from '../../src/lists/confirm.js';

test('confirmation codes: signed, expiring, unforgeable', () => {
  const token = 'a'.repeat(43);
  const code = confirmCode('key', token, 2_000_000_000);
  assert.deepEqual(readConfirmCode('key', code, 1_999_999_999), { token });
  assert.equal(readConfirmCode('key', code, 2_000_000_001), 'expired');
  assert.equal(readConfirmCode('other key', code, 1), null);
  assert.equal(readConfirmCode('key', code.replace('.2000000000.', '.2000000009.'), 1), null, 'a later expiry is not signed');
  assert.equal(readConfirmCode('key', `${'b'.repeat(43)}${code.slice(43)}`, 1), null);
  assert.equal(readConfirmCode('key', 'nonsense', 1), null);
});

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: double opt-in: pending, one confirmation email through the pipeline, its link confirms`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const nl = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
    const call = (method: string, path: string, body?: unknown) => s.call(method, path, body, nl);
    assert.equal(
      (await call('POST', '/api/v2/lists', { name: 'News', double_opt_in: true })).body.error,
      'a double opt-in list needs a from_address: its confirmation emails are sent from it (or from --system-sender, which is not set)',
    );
    const list = (
      await call('POST', '/api/v2/lists', { name: 'News', double_opt_in: true, from_address: 'hello@acme.test', from_name: 'Acme News' })
    ).body;
    assert.equal((await call('PATCH', `/api/v2/lists/${list.id}`, { from_address: '' })).status, 400);

    const jane = (await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'jane@rcpt.test', name: 'Jane' })).body;
    assert.equal(jane.status, 'pending');
    await s.sink.waitFor(1);
    const mail = s.sink.received[0]!;
    assert.deepEqual(mail.to, ['jane@rcpt.test']);
    const raw = mail.raw.toString('utf8');
    assert.match(raw, /^Subject: Confirm your subscription to News\r$/m);
    assert.match(raw, /^From: "?Acme News"? <hello@acme\.test>\r$/m);
    assert.equal((await verifyDkim(mail.raw, s.dns.server))[0]?.status.result, 'pass');
    // Nobody is tracked before consenting: no open pixel in the confirmation.
    assert.doesNotMatch(raw.replace(/=\r\n/g, ''), /<img\b|\/t\/o\//);
    const link = /(http:\/\/[^\s"<]+\/c\/[A-Za-z0-9_.-]+)/.exec(raw.replace(/=\r\n/g, ''))![1]!;
    assert.ok(link.startsWith(service.deps.config.baseUrl));
    // Posted again within the hour: no second email (the message log has one).
    assert.equal(
      (await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'jane@rcpt.test', name: 'Jane D.' })).body.status,
      'pending',
    );
    assert.equal((await s.get('/api/v2/messages?recipient=jane@rcpt.test')).body.total, 1);

    const at = `${s.api}${new URL(link).pathname}`;
    const asked = await fetch(at);
    assert.equal(asked.status, 200);
    assert.match(await asked.text(), /<form method="post"><button type="submit">Confirm my subscription<\/button><\/form>/);
    assert.equal((await service.lists.subscriber(s.ws, list.id, jane.id)).status, 'pending', 'a GET confirms nobody');
    const confirmed = await fetch(at, { method: 'POST' });
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /<h1>Subscription confirmed<\/h1>/);
    assert.equal((await service.lists.subscriber(s.ws, list.id, jane.id)).status, 'active');
    assert.equal((await fetch(at, { method: 'POST' })).status, 200, 'again: the same');
    // An altered link: 404 with the same page shape; imported rows are active without an email.
    const altered = at.replace(/\.(\d{10})\./, (_m, d: string) => `.${String(Number(d) + 1)}.`);
    const forged = await fetch(altered, { method: 'POST' });
    assert.equal(forged.status, 404);
    assert.match(await forged.text(), /<h1>Link not valid<\/h1>/);
    assert.deepEqual((await call('POST', `/api/v2/lists/${list.id}/subscribers/import`, { csv: 'bob@rcpt.test' })).body, {
      imported: 1,
      skipped: 0,
      errors: null,
    });
    assert.equal((await service.lists.subscribers(s.ws, list.id, { status: 'active' })).total, 2);
    assert.equal((await s.get('/api/v2/messages?recipient=bob@rcpt.test')).body.total, 0);
  });

  test(`${backend}: double opt-in without a list sender: the confirmation comes from the system sender, not counted; its link confirms`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, {
      plan: 'trial',
      env: { SVC_SYSTEM_SENDER: 'hello@acme.test' },
      ...(pgUrl ? { store: pgLocation(pgUrl) } : {}),
    });
    const { service } = s.daemon;
    const nl = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
    const list = await s.call('POST', '/api/v2/lists', { name: 'News', double_opt_in: true }, nl);
    assert.equal(list.status, 201, JSON.stringify(list.body));
    const jane = (await s.call('POST', `/api/v2/lists/${list.body.id}/subscribers`, { email: 'jane@rcpt.test' }, nl)).body;
    assert.equal(jane.status, 'pending');
    await s.sink.waitFor(1);
    const raw = s.sink.received[0]!.raw.toString('utf8');
    assert.match(raw, /^From: svc <hello@acme\.test>\r$/m);
    assert.match(raw, /^Subject: Confirm your subscription to News\r$/m);
    assert.equal((await verifyDkim(s.sink.received[0]!.raw, s.dns.server))[0]?.status.result, 'pass');
    const used = (await service.workspaces.usage('acme')).quotas.find((q) => q.kind === 'api_sends' && q.window === 'day')!.used;
    assert.equal(used, 0, 'not counted against the plan');
    const link = /(http:\/\/[^\s"<]+\/c\/[A-Za-z0-9_.-]+)/.exec(raw.replace(/=\r\n/g, ''))![1]!;
    const confirmed = await fetch(`${s.api}${new URL(link).pathname}`, { method: 'POST' });
    assert.equal(confirmed.status, 200);
    assert.equal((await service.lists.subscriber(s.ws, list.body.id, jane.id)).status, 'active');
  });
}
