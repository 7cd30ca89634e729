// The REST API described (daemon/http/openapi.ts, schemas.ts): the OpenAPI document is served
// without a key, is valid OpenAPI 3.1 by an independent validator, matches docs/openapi.json, and
// the response schemas it is made from drop nothing the services answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validate, compileErrors } from '@readme/openapi-parser';
import { sending, settled } from '../helpers/sending.js';
import { openApiText } from '../../scripts/docs.js';
import { fromRoot } from '../helpers/root.js';

const committed = () => readFileSync(fromRoot('docs/openapi.json'), 'utf8');

test('GET /api/v2/openapi.json: served without a key, valid OpenAPI 3.1, the same as docs/openapi.json (npm run docs)', async (t) => {
  const s = await sending(t, { deliver: false });
  const r = await fetch(`${s.api}/api/v2/openapi.json`);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  const doc = (await r.json()) as {
    openapi: string;
    paths: Record<string, unknown>;
    components: { securitySchemes: Record<string, unknown> };
  };
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.components.securitySchemes), ['apiKey']);
  // The API only: no page of the web app, no tracking or unsubscribe link, not the document itself.
  for (const path of Object.keys(doc.paths)) assert.match(path, /^\/(api\/v2\/|healthz$)/);
  assert.ok(!('/api/v2/openapi.json' in doc.paths));
  const result = await validate(structuredClone(doc) as never);
  assert.ok(result.valid, compileErrors(result));
  assert.equal(openApiText(doc), committed(), 'docs/openapi.json is stale: run npm run docs');
});

test('the response schemas drop no field: each documented route answers what its service returns, every field of it documented', async (t) => {
  const s = await sending(t);
  const doc = (await (await fetch(`${s.api}/api/v2/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { responses: Record<string, any> }>>;
  };
  /** The documented answer's fields: all of them, and those it always has. */
  const fields = (path: string, method: string, status: string) => {
    const schema = doc.paths[path]![method]!.responses[status].content['application/json'].schema;
    const item = schema.properties?.data?.items ?? schema;
    return { all: Object.keys(item.properties).sort(), required: (item.required ?? []).sort() };
  };
  /** Every field the answer has is documented, and every field documented as always there is there. */
  const documented = (answer: Record<string, unknown>, f: { all: string[]; required: string[] }, what: string) => {
    for (const k of Object.keys(answer)) assert.ok(f.all.includes(k), `${what}: ${k} is not documented`);
    for (const k of f.required) assert.ok(k in answer, `${what}: documented ${k} is missing`);
  };
  const sent = await s.post({ from: 'Acme <hello@acme.test>', to: ['jane@rcpt.test'], subject: 'Hi', body_html: '<p>Hi</p>' });
  assert.equal(sent.status, 202);
  documented(sent.body, fields('/api/v2/emails', 'post', '202'), 'POST /emails');
  await settled(s, sent.body.id);
  const { service } = s.daemon;
  const ws = s.ws;
  /** The HTTP answer is the service's own, field for field (the serialiser cut or changed nothing). */
  const same = async (path: string, direct: () => Promise<unknown>) => {
    const r = await s.get(path);
    assert.equal(r.status, 200, path);
    assert.deepEqual(r.body, JSON.parse(JSON.stringify(await direct())), path);
    return r.body;
  };
  const one = await same(`/api/v2/messages/${sent.body.id}`, () => service.messages.get(ws, sent.body.id));
  documented(one, fields('/api/v2/messages/{id}', 'get', '200'), 'a message');
  const page = await same('/api/v2/messages?limit=5', () => service.messages.list(ws, { limit: '5' }));
  documented(page.data[0], fields('/api/v2/messages', 'get', '200'), 'a list item');
  // An open, so that the event list has an item to compare.
  const m = (await service.store.messages.get(ws.id, sent.body.id))!;
  await fetch(`${s.api}/t/o/${m.token}.gif`, { headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0) test' } });
  await service.tracking.drain();
  const events = await same(`/api/v2/messages/${sent.body.id}/events`, () => service.tracking.events(ws, sent.body.id));
  assert.equal(events.total, 1);
  documented(events.data[0], fields('/api/v2/messages/{id}/events', 'get', '200'), 'an event');
  const me = await same('/api/v2/me', async () => ({ tenant: 'acme', permissions: ['send', 'read'] }));
  documented(me, fields('/api/v2/me', 'get', '200'), 'GET /me');
  // The team inbox, from the send's Sent copy.
  const items = await same('/api/v2/inbox/items?folder=sent', () => service.inbox.list(ws, { folder: 'sent' }));
  assert.ok(items.data.length >= 1);
  documented(items.data[0], fields('/api/v2/inbox/items', 'get', '200'), 'an inbox item of the list');
  const item = await same(`/api/v2/inbox/items/${items.data[0].id}`, () => service.inbox.get(ws, items.data[0].id));
  documented(item, fields('/api/v2/inbox/items/{id}', 'get', '200'), 'an inbox item');
  const threads = await same('/api/v2/inbox/threads', () => service.inbox.threads(ws, {}));
  documented(threads.data[0], fields('/api/v2/inbox/threads', 'get', '200'), 'a thread of the list');
  const thread = await same(`/api/v2/inbox/threads/${threads.data[0].thread_id}`, () =>
    service.inbox.thread(ws, threads.data[0].thread_id),
  );
  documented(thread, fields('/api/v2/inbox/threads/{id}', 'get', '200'), 'a thread');
  const marked = await s.call('PATCH', `/api/v2/inbox/threads/${thread.thread_id}`, { read: true }, s.key);
  assert.equal(marked.status, 200);
  documented(marked.body, fields('/api/v2/inbox/threads/{id}', 'patch', '200'), 'a marked thread');
  const again = await s.call('POST', `/api/v2/inbox/items/${item.id}/reply`, { text: 'And more.' }, s.key);
  assert.equal(again.status, 202);
  documented(again.body, fields('/api/v2/inbox/items/{id}/reply', 'post', '202'), 'a reply');
  // Lists and subscribers: every answer documented, each the service's own.
  const nk = (await service.keys.create(ws, { scopes: 'newsletter,read' })).key;
  const list = (await s.call('POST', '/api/v2/lists', { name: 'News', from_address: 'hello@acme.test' }, nk)).body;
  documented(list, fields('/api/v2/lists', 'post', '201'), 'a new list');
  const sub = await s.call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'Ann@rcpt.test', name: 'Ann', tags: ['a'] }, nk);
  assert.equal(sub.status, 201);
  documented(sub.body, fields('/api/v2/lists/{id}/subscribers', 'post', '201'), 'a new subscriber');
  const imported = await s.call(
    'POST',
    `/api/v2/lists/${list.id}/subscribers/import`,
    { csv: 'email,name\nbob@rcpt.test,Bob\nnot-an-email,X\n' },
    nk,
  );
  assert.equal(imported.status, 200);
  documented(imported.body, fields('/api/v2/lists/{id}/subscribers/import', 'post', '200'), 'an import result');
  documented((await s.get(`/api/v2/lists/${list.id}`, nk)).body, fields('/api/v2/lists/{id}', 'get', '200'), 'a list');
  const subs = await s.get(`/api/v2/lists/${list.id}/subscribers`, nk);
  assert.deepEqual(subs.body, JSON.parse(JSON.stringify(await service.lists.subscribers(ws, list.id, {}))));
  documented(subs.body.data[0], fields('/api/v2/lists/{id}/subscribers', 'get', '200'), 'a subscriber of the page');
  const gone = await s.call('POST', `/api/v2/lists/${list.id}/subscribers/${sub.body.id}/unsubscribe`, undefined, nk);
  assert.equal(gone.body.status, 'unsubscribed');
  documented(gone.body, fields('/api/v2/lists/{id}/subscribers/{sub_id}/unsubscribe', 'post', '200'), 'an unsubscribed subscriber');
  const cast = await s.call(
    'POST',
    `/api/v2/lists/${list.id}/broadcast`,
    { subject: 'News', body_html: '<p>Hi {{first_name|there}}</p>' },
    nk,
  );
  assert.equal(cast.status, 202);
  documented(cast.body, fields('/api/v2/lists/{id}/broadcast', 'post', '202'), 'a broadcast result');
  // Sequences and steps.
  const seq = await s.call('POST', '/api/v2/sequences', { name: 'Welcome', list_id: list.id }, nk);
  assert.equal(seq.status, 201);
  documented(seq.body, fields('/api/v2/sequences', 'post', '201'), 'a new sequence');
  const step = await s.call(
    'POST',
    `/api/v2/sequences/${seq.body.id}/steps`,
    { position: 0, delay_hours: 0, subject: 'Hello', body_html: '<p>Hi</p>' },
    nk,
  );
  assert.equal(step.status, 201);
  documented(step.body, fields('/api/v2/sequences/{id}/steps', 'post', '201'), 'a new step');
  const seqs = await s.get('/api/v2/sequences', nk);
  assert.deepEqual(seqs.body, JSON.parse(JSON.stringify({ data: await service.sequences.list(ws) })));
  documented(seqs.body.data[0], fields('/api/v2/sequences', 'get', '200'), 'a sequence of the list');
  const steps = await s.get(`/api/v2/sequences/${seq.body.id}/steps`, nk);
  documented(steps.body.data[0], fields('/api/v2/sequences/{id}/steps', 'get', '200'), 'a step of the list');
  assert.equal((await s.call('DELETE', `/api/v2/sequences/${seq.body.id}/steps/${step.body.id}`, undefined, nk)).status, 204);
  assert.equal((await s.call('DELETE', `/api/v2/sequences/${seq.body.id}`, undefined, nk)).status, 204);
  const removed = await s.call('DELETE', `/api/v2/lists/${list.id}`, undefined, nk);
  assert.deepEqual([removed.status, removed.body], [204, null]);
  // Errors keep their one shape (the serialiser must not cut them).
  const missing = await s.get('/api/v2/messages/nope');
  assert.deepEqual([missing.status, missing.body], [404, { error: 'message not found' }]);
  const bad = await s.get('/api/v2/messages?status=lost');
  assert.deepEqual([bad.status, bad.body], [400, { error: 'invalid query: status must be queued, sent, bounced' }]);
  const noKey = await fetch(`${s.api}/api/v2/me`);
  assert.deepEqual([noKey.status, await noKey.json()], [401, { error: 'missing Bearer token' }]);
});

test("POST /api/v2/emails: its body schema runs, and every wrong field keeps the pipeline's text", async (t) => {
  const s = await sending(t, { deliver: false });
  const r = await s.post({ from: 'hello@acme.test', to: 'jane@rcpt.test', subject: 'x', body_text: 'x' });
  assert.deepEqual([r.status, r.body], [400, { error: 'invalid body: to must be an array of strings' }]);
  const none = await s.post({ to: ['jane@rcpt.test'] });
  assert.equal(none.status, 400);
  assert.equal(none.body.error, 'from, to, subject are required');
});
