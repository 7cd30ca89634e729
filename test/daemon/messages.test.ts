// The message log over HTTP, on both backends: fields, filters, paging, isolation, events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending, settled, type Sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { verifyDkim } from '../helpers/sink.js';

const MESSAGE_FIELDS = [
  'bounced_at',
  'click_count',
  'clicked_at',
  'created_at',
  'engagement_score',
  'error',
  'first_open_after_seconds',
  'from',
  'id',
  'message_id',
  'open_count',
  'opened_at',
  'replied_at',
  'reply_count',
  'sent_at',
  'status',
  'subject',
  'to',
];
const LIST_FIELDS = [
  'click_count',
  'created_at',
  'from',
  'id',
  'message_id',
  'open_count',
  'opened_at',
  'sent_at',
  'status',
  'subject',
  'tenant_id',
  'to',
];

async function logSuite(s: Sending) {
  const send = (to: string[], subject = 'S') => s.post({ from: 'hello@acme.test', to, subject, body_text: 'x' });
  s.sink.refuse('bad@rcpt.test', 550, '5.1.1 unknown');
  const first = await send(['Alice@rcpt.test']);
  await settled(s, first.body.id);
  const second = await send(['bob@rcpt.test', 'bad@rcpt.test'], 'second');
  await settled(s, second.body.id);
  for (let i = 0; i < 3; i++) await send([`n${i}@other.test`]);

  const one = await s.get(`/api/v2/messages/${first.body.id}`);
  assert.equal(one.status, 200);
  for (const f of MESSAGE_FIELDS) assert.ok(f in one.body, f);
  assert.deepEqual(
    [one.body.from, one.body.to, one.body.subject, one.body.status, one.body.open_count, one.body.engagement_score, one.body.error],
    ['hello@acme.test', 'Alice@rcpt.test', 'S', 'sent', 0, 0, null],
  );
  assert.match(one.body.message_id, /^[0-9a-f-]{36}@acme\.test$/);

  const list = await s.get('/api/v2/messages');
  assert.equal(list.body.total, 6);
  assert.deepEqual(Object.keys(list.body.data[0]).sort(), LIST_FIELDS);
  assert.equal(list.body.data[5].to, 'Alice@rcpt.test', 'newest first');
  assert.deepEqual(
    (await s.get('/api/v2/messages?recipient=aLiCe')).body.data.map((m: any) => m.to),
    ['Alice@rcpt.test'],
  );
  assert.equal((await s.get('/api/v2/messages?recipient=other.test')).body.total, 3);
  const bounced = await s.get('/api/v2/messages?status=bounced');
  assert.deepEqual([bounced.body.total, bounced.body.data[0].to], [1, 'bad@rcpt.test']);
  const page = await s.get('/api/v2/messages?limit=2&offset=1');
  assert.deepEqual([page.body.total, page.body.data.length, page.body.data[0].id], [6, 2, list.body.data[1].id]);
  assert.equal((await s.get('/api/v2/messages?limit=100000')).status, 200, 'a larger limit is cut to 500');
  for (const q of ['status=lost', 'limit=abc', 'limit=0', 'offset=-1']) assert.equal((await s.get(`/api/v2/messages?${q}`)).status, 400, q);

  assert.deepEqual((await s.get(`/api/v2/messages/${first.body.id}/events`)).body, { data: [], total: 0 });
  const missing = await s.get('/api/v2/messages/00000000-0000-0000-0000-000000000000');
  assert.deepEqual([missing.status, missing.body], [404, { error: 'message not found' }]);
  assert.equal((await s.get('/api/v2/messages/nope/events')).status, 404);

  // Another workspace sees none of it, not even by id.
  const other = await s.daemon.service.workspaces.create('other', 'scale');
  const otherKey = (await s.daemon.service.keys.create(other, { scopes: 'read' })).key;
  assert.deepEqual((await s.get('/api/v2/messages', otherKey)).body, { data: [], total: 0 });
  assert.equal((await s.get(`/api/v2/messages/${first.body.id}`, otherKey)).status, 404);
  return s;
}

test('message log on the file store', async (t) => {
  await logSuite(await sending(t));
});

if (TEST_DATABASE_URL) {
  test('message log and DKIM-signed delivery on Postgres', async (t) => {
    const url = await migratedSchemaUrl(t);
    const s = await logSuite(await sending(t, { store: pgLocation(url) }));
    await s.sink.waitFor(2);
    assert.equal((await verifyDkim(s.sink.received[0]!.raw, s.dns.server))[0]!.status.result, 'pass');
    assert.deepEqual(
      (await s.daemon.service.suppressions.list(s.ws)).map((x) => x.address),
      ['bad@rcpt.test'],
    );
  });
}
