// Store conformance: messages. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, fresh, ws, key, address, batch } from './fixtures.js';

export function messagesConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: messages: accept, get, list newest first with filters and paging, contents`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const b1 = batch(a.id, ['Jane@Rcpt.test', 'bob@rcpt.test'], '2026-01-01T10:00:00.000Z');
    const b2 = batch(a.id, ['carol@other.test'], '2026-01-01T11:00:00.000Z');
    await store.messages.accept(b1);
    await store.messages.accept(b2);
    await store.messages.accept(batch(b.id, ['jane@rcpt.test'], '2026-01-01T12:00:00.000Z'));
    const all = await store.messages.list(a.id, { limit: 100, offset: 0 });
    assert.equal(all.total, 3);
    assert.deepEqual(
      all.data.map((m) => m.to),
      ['carol@other.test', 'bob@rcpt.test', 'Jane@Rcpt.test'],
    );
    assert.deepEqual(all.data[0], b2.messages[0]);
    const page = await store.messages.list(a.id, { limit: 1, offset: 1 });
    assert.deepEqual([page.total, page.data.map((m) => m.to)], [3, ['bob@rcpt.test']]);
    assert.deepEqual(
      (await store.messages.list(a.id, { recipient: 'JANE', limit: 100, offset: 0 })).data.map((m) => m.to),
      ['Jane@Rcpt.test'],
    );
    assert.equal((await store.messages.list(a.id, { recipient: '%', limit: 100, offset: 0 })).total, 0);
    assert.equal((await store.messages.list(a.id, { status: 'sent', limit: 100, offset: 0 })).total, 0);
    // An operator's search: by Message-ID header, sender, and time (since inclusive, until not).
    const tos = async (q: Omit<Parameters<typeof store.messages.list>[1], 'limit' | 'offset'>) =>
      (await store.messages.list(a.id, { ...q, limit: 100, offset: 0 })).data.map((m) => m.to);
    assert.deepEqual(await tos({ messageId: b1.messages[0]!.message_id }), ['bob@rcpt.test', 'Jane@Rcpt.test']);
    assert.deepEqual(await tos({ messageId: 'nope@acme.test' }), []);
    assert.deepEqual(await tos({ from: 'HELLO@ACME' }), ['carol@other.test', 'bob@rcpt.test', 'Jane@Rcpt.test']);
    assert.deepEqual(await tos({ from: 'someone-else' }), []);
    assert.deepEqual(await tos({ since: '2026-01-01T11:00:00.000Z' }), ['carol@other.test']);
    assert.deepEqual(await tos({ until: '2026-01-01T11:00:00.000Z' }), ['bob@rcpt.test', 'Jane@Rcpt.test']);
    assert.deepEqual(await tos({ since: '2026-01-01T10:00:00.000Z', until: '2026-01-01T10:59:59.000Z', recipient: 'bob' }), [
      'bob@rcpt.test',
    ]);
    assert.equal((await store.messages.get(a.id, b1.messages[0]!.id))?.to, 'Jane@Rcpt.test');
    assert.equal(await store.messages.get(b.id, b1.messages[0]!.id), null, 'another workspace sees nothing');
    // A short id: the workspace's ids that start with it, at most the limit; none from another workspace.
    const full = b1.messages[0]!.id;
    assert.deepEqual(await store.messages.idsWithPrefix(a.id, full.slice(0, 8), 10), [full]);
    assert.deepEqual(await store.messages.idsWithPrefix(a.id, full, 10), [full]);
    assert.deepEqual(await store.messages.idsWithPrefix(b.id, full.slice(0, 8), 10), []);
    assert.deepEqual(await store.messages.idsWithPrefix(a.id, 'zzzz', 10), []);
    assert.ok((await store.messages.idsWithPrefix(a.id, '', 1)).length === 1, 'the limit holds');
    assert.deepEqual(
      (await store.messages.byIds([b1.messages[1]!.id, 'nope'])).map((m) => m.to),
      ['bob@rcpt.test'],
    );
    assert.deepEqual(await store.messages.content(b1.content.id), b1.content);
    // Relayed attachments go with the content, byte for byte.
    const withFiles = batch(a.id, ['files@rcpt.test'], '2026-01-01T10:00:00.000Z');
    withFiles.content.attachments = [
      { filename: 'a.pdf', content_type: 'application/pdf', disposition: 'attachment', cid: null, content: 'JVBERi0xLjQK' },
      { filename: null, content_type: 'image/png', disposition: 'inline', cid: 'logo@acme', content: 'iVBORw0KGgo=' },
    ];
    await store.messages.accept(withFiles);
    assert.deepEqual(await store.messages.content(withFiles.content.id), withFiles.content);
    // Relayed mail keeps the message as it came (read when composed): it comes back byte for byte.
    const relayed = batch(a.id, ['relayed@rcpt.test'], '2026-01-01T10:00:00.000Z');
    relayed.content = {
      ...relayed.content,
      source: 'relay',
      html: null,
      text: null,
      raw: Buffer.from('Subject: hi\r\n\r\nbody \xe9\r\n', 'latin1').toString('base64'),
    };
    await store.messages.accept(relayed);
    assert.deepEqual(await store.messages.content(relayed.content.id), relayed.content);
    // Its Sent copy carries the message, for the inbox to read its text and HTML from when shown.
    assert.equal((await store.inbox.get(a.id, relayed.content.id))?.raw, relayed.content.raw);
    assert.equal(await store.messages.content('nope'), null);
  });

  test(`${backend.name}: purge removes messages created before a time`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const old = batch(a.id, ['old@rcpt.test'], '2026-01-01T10:00:00.000Z');
    await store.messages.accept(old);
    await store.queue.complete(old.jobs[0]!.id, {
      updates: [{ id: old.messages[0]!.id, status: 'sent', sent_at: '2026-01-01T10:00:01.000Z' }],
      events: [],
      suppressions: [],
    });
    await store.messages.accept(batch(a.id, ['new@rcpt.test'], '2026-02-01T10:00:00.000Z'));
    assert.equal(await store.messages.purge('2026-01-15T00:00:00.000Z'), 1);
    assert.deepEqual(
      (await store.messages.list(a.id, { limit: 10, offset: 0 })).data.map((m) => m.to),
      ['new@rcpt.test'],
    );
    assert.equal(await store.messages.get(a.id, old.messages[0]!.id), null);
  });

  test(`${backend.name}: rule, the send-quota debit: concurrent sends debit the quota exactly: those that fit are kept, the rest refused whole`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const at = '2026-01-01T10:00:00.000Z';
    const windows = [
      { key: 'day:2026-01-01', window: 'day' as const, limit: 15, resets_at: '2026-01-02T00:00:00.000Z' },
      { key: 'month:2026-01', window: 'month' as const, limit: null, resets_at: '2026-02-01T00:00:00.000Z' },
    ];
    const sends = Array.from({ length: 20 }, (_, i) => ({ ...batch(a.id, [`r${i}@rcpt.test`], at), debit: { n: 1, windows } }));
    const results = await Promise.all(sends.map((b) => store.messages.accept(b)));
    assert.equal(results.filter((r) => r === null).length, 15);
    // The others are refused with the window they would go over and its count.
    for (const r of results) if (r !== null) assert.deepEqual(r, { refused: 'send_quota', window: windows[0], used: 15 });
    assert.deepEqual(await store.usage.get(a.id, ['day:2026-01-01', 'month:2026-01']), { 'day:2026-01-01': 15, 'month:2026-01': 15 });
    assert.equal((await store.messages.list(a.id, { limit: 100, offset: 0 })).total, 15, 'a refused send leaves no records');
    assert.equal(await store.queue.depth(), 15);
  });

  test(`${backend.name}: rule, the suppressed-recipient refusal: accept refuses a send naming a suppressed recipient, storing and counting nothing`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const at = '2026-01-01T10:00:00.000Z';
    await store.suppressions.add({ workspace_id: a.id, address: 'gone@rcpt.test', reason: 'bounce', detail: '550', created_at: at });
    const windows = [{ key: 'day:2026-01-01', window: 'day' as const, limit: null, resets_at: '2026-01-02T00:00:00.000Z' }];
    const refused = {
      ...batch(a.id, ['jane@rcpt.test', 'gone@rcpt.test'], at),
      debit: { n: 2, windows },
      unsuppressed: ['jane@rcpt.test', 'gone@rcpt.test'],
    };
    assert.deepEqual(await store.messages.accept(refused), { refused: 'suppressed', addresses: ['gone@rcpt.test'] });
    assert.equal((await store.messages.list(a.id, { limit: 10, offset: 0 })).total, 0);
    assert.deepEqual(await store.usage.get(a.id, ['day:2026-01-01']), { 'day:2026-01-01': 0 });
    assert.equal(await store.queue.depth(), 0);
    // Another workspace's list does not count; an empty list checks nothing.
    assert.equal(await store.messages.accept({ ...batch(other.id, ['gone@rcpt.test'], at), unsuppressed: ['gone@rcpt.test'] }), null);
    assert.equal(
      await store.messages.accept({ ...batch(a.id, ['jane@rcpt.test'], at), debit: { n: 1, windows }, unsuppressed: ['jane@rcpt.test'] }),
      null,
    );
    assert.equal(await store.messages.accept({ ...batch(a.id, ['x@rcpt.test'], at), unsuppressed: [] }), null);
    assert.equal((await store.messages.list(a.id, { limit: 10, offset: 0 })).total, 2);
  });
}
