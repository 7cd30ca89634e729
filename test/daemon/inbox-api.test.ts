// The team inbox over REST (additions to spec.md): threads, items of both folders, one item with
// its HTML as received, a reply from the inbox through the one pipeline (threaded, In-Reply-To,
// the inbox sends per day and not the API's quota), scopes and workspaces. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending, settled } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { replyTo, transact } from '../helpers/mx.js';
import { headers } from '../helpers/sink.js';
import { storageCharge } from '../../src/model/inbox.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: inbox API: threads, items, a reply from the inbox within its own quota; scopes; workspaces apart`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { plan: 'trial', ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const mx = s.daemon.url('mx');
    const r = await s.post({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Hello', body_html: '<p>Hello</p>' });
    const m = await settled(s, r.body.id);
    const html = '<p>Thanks!</p><script>alert(1)</script>';
    const mail = replyTo('jane@rcpt.test', 'hello@acme.test', m.message_id).replace(
      '\r\n\r\nThanks, that helps.',
      `\r\nContent-Type: text/html\r\n\r\n${html}`,
    );
    assert.match((await transact(mx, 'jane@rcpt.test', ['hello@acme.test'], mail)).end, /^250 /);

    const threads = (await s.get('/api/v2/inbox/threads')).body;
    assert.equal(threads.total, 1);
    assert.deepEqual(
      { subject: threads.data[0].subject, count: threads.data[0].count, last_kind: threads.data[0].last_kind },
      { subject: 'Hello', count: 2, last_kind: 'reply' },
    );
    const thread = (await s.get(`/api/v2/inbox/threads/${threads.data[0].thread_id}`)).body;
    assert.deepEqual(
      thread.items.map((i: { kind: string }) => i.kind),
      ['sent', 'reply'],
    );
    const items = (await s.get('/api/v2/inbox/items')).body;
    assert.equal(items.total, 1);
    const item = (await s.get(`/api/v2/inbox/items/${items.data[0].id}`)).body;
    assert.equal(item.html.trimEnd(), html, 'HTML as received, a string');
    assert.equal(item.raw, undefined);
    assert.ok((await s.get(`/api/v2/inbox/items/${items.data[0].id}?raw=1`)).body.raw);
    const sentList = await s.get('/api/v2/inbox/items?folder=sent');
    assert.equal(sentList.body.data?.[0]?.kind, 'sent', JSON.stringify(sentList.body));
    assert.equal((await s.get('/api/v2/inbox/items?folder=trash')).status, 400);
    // By kind.
    assert.deepEqual(
      (await s.get('/api/v2/inbox/items?kind=reply')).body.data.map((i: { id: string }) => i.id),
      [items.data[0].id],
    );
    assert.equal((await s.get('/api/v2/inbox/items?kind=bounce')).body.total, 0);
    const badKind = await s.get('/api/v2/inbox/items?kind=spam');
    assert.equal(badKind.status, 400);
    assert.match(badKind.body.error, /kind must be one of mail, reply, auto_reply, bounce, complaint, sent/);
    assert.equal((await s.get('/api/v2/inbox/items/00000000-0000-4000-8000-000000000000')).status, 404);

    // Scopes: reading takes read or send; a reply takes send.
    const service = s.daemon.service;
    const keyFor = async (scopes: string, ws = s.ws) => (await service.keys.create(ws, { scopes })).key;
    const newsletter = await keyFor('newsletter');
    const denied = await s.get('/api/v2/inbox/threads', newsletter);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error, 'missing permission: read');
    const reader = await keyFor('read');
    const replyAs = (k: string, body: unknown) =>
      fetch(`${s.api}/api/v2/inbox/items/${item.id}/reply`, {
        method: 'POST',
        headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (x) => ({ status: x.status, body: (await x.json()) as any }));
    assert.equal((await replyAs(reader, { text: 'x' })).status, 403);
    assert.equal((await replyAs(s.key, {})).status, 400);

    // Another workspace sees none of it.
    const other = await keyFor('read,send', await service.workspaces.create('other', 'scale'));
    assert.equal((await s.get(`/api/v2/inbox/items/${item.id}`, other)).status, 404);
    assert.equal((await s.get('/api/v2/inbox/threads', other)).body.total, 0);
    assert.equal((await replyAs(other, { text: 'x' })).status, 404);

    // A reply from the inbox: to Jane, from the address she wrote to, threaded, In-Reply-To her message.
    const before = s.sink.received.length;
    const answered = await replyAs(s.key, { text: 'Glad it helped.' });
    assert.equal(answered.status, 202);
    await s.sink.waitFor(before + 1);
    const copy = s.sink.received.at(-1)!;
    const h = headers(copy.raw);
    assert.deepEqual(copy.to, ['jane@rcpt.test']);
    assert.equal(h.get('subject')![0], 'Re: Hello');
    assert.equal(h.get('in-reply-to')![0], `<${item.message_id}>`);
    assert.match(h.get('references')![0]!, new RegExp(`<${m.message_id}> <${item.message_id}>`));
    const after = (await s.get(`/api/v2/inbox/threads/${threads.data[0].thread_id}`)).body;
    assert.deepEqual(
      after.items.map((i: { kind: string }) => i.kind),
      ['sent', 'reply', 'sent'],
    );

    // The trial's 50 inbox sends a day: the 51st is 429 kind inbox_sends; API sends are untouched.
    for (let i = 1; i < 50; i++) assert.equal((await replyAs(s.key, { text: `n${i}` })).status, 202);
    const over = await replyAs(s.key, { text: 'one too many' });
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'quota_exceeded');
    assert.equal(over.body.kind, 'inbox_sends');
    assert.equal(over.body.limit, 50);
    assert.equal((await s.post({ from: 'hello@acme.test', to: ['bob@rcpt.test'], subject: 'API', body_text: 'x' })).status, 202);

    // Deleting a received item takes send, stays in the workspace, leaves Sent copies alone, and frees its storage.
    const del = (k: string, id: string) =>
      fetch(`${s.api}/api/v2/inbox/items/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${k}` } }).then(async (x) => ({
        status: x.status,
        text: await x.text(),
      }));
    const used = await service.inbox.usage(s.ws);
    assert.ok(used > 0);
    assert.equal((await del(reader, item.id)).status, 403);
    assert.equal((await del(other, item.id)).status, 404);
    const sentDel = await del(s.key, sentList.body.data[0].id);
    assert.equal(sentDel.status, 400);
    assert.match(sentDel.text, /Sent copy is part of the message log/);
    assert.deepEqual(await del(s.key, item.id), { status: 204, text: '' });
    assert.equal((await s.get(`/api/v2/inbox/items/${item.id}`)).status, 404);
    assert.equal((await s.get('/api/v2/inbox/items')).body.total, 0);
    assert.equal(await service.inbox.usage(s.ws), used - storageCharge(item.size));
    assert.equal((await del(s.key, item.id)).status, 404);
  });
}
