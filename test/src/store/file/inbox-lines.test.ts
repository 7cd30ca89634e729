// The file store's inbox journal as it is on disk: a message is its record's attachment (a `~` base64
// line just before it), and lines written by the version before, which kept the message in each
// item, are still read the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileStore } from '../../../../src/store/file/file-store.js';
import { STORAGE_MIN_CHARGE, type InboxItem } from '../../../../src/model/inbox.js';
import { tmpDir } from '../../../helpers/tmp.js';
import { ws } from '../conformance/fixtures.js';

const item = (workspace_id: string, raw: string | null): InboxItem => ({
  id: randomUUID(),
  workspace_id,
  folder: 'inbox',
  kind: 'mail',
  thread_id: randomUUID(),
  from: 'jane@rcpt.test',
  to: ['hello@acme.test'],
  cc: [],
  subject: 'Hi',
  message_id: null,
  size: 5,
  message_ref: null,
  note: null,
  created_at: '2026-01-02T10:00:00.000Z',
  in_reply_to: null,
  references: [],
  headers: 'Subject: Hi',
  text: null,
  html: null,
  envelope: { mail_from: 'jane@rcpt.test', rcpt_to: ['hello@acme.test'], remote_ip: null },
  raw,
});

test('file store: the message is an attachment line before its record; a line of the previous version is read the same', async (t) => {
  const dir = await tmpDir(t);
  const store = await FileStore.open(dir, 'admin');
  const w = await store.workspaces.create(ws('acme'));
  const now = item(w.id, null);
  await store.inbox.receive({ raw: Buffer.from('Hello'), items: [now], updates: [], outbox: [], events: [], suppressions: [] });
  const lines = (await readFile(join(dir, 'inbox', '2026-01-02.jsonl'), 'utf8')).split('\n');
  assert.equal(lines[0], `~${Buffer.from('Hello').toString('base64')}`);
  assert.equal(JSON.parse(lines[1]!).raw_length, Buffer.from('Hello').toString('base64').length);
  await store.close();

  // As the previous version wrote it: the message in the item, no attachment.
  const old = item(w.id, Buffer.from('Older').toString('base64'));
  await appendFile(
    join(dir, 'inbox', '2026-01-02.jsonl'),
    JSON.stringify({ t: 'inbound', at: old.created_at, items: [old], updates: [], outbox: [], events: [], suppressions: [] }) + '\n',
  );
  const again = await FileStore.open(dir, 'admin');
  t.after(() => again.close());
  assert.equal((await again.inbox.get(w.id, now.id))!.raw, Buffer.from('Hello').toString('base64'));
  assert.equal((await again.inbox.get(w.id, old.id))!.raw, Buffer.from('Older').toString('base64'));
  assert.equal((await again.inbox.list(w.id, { folder: 'inbox', limit: 10, offset: 0 })).total, 2);
  assert.deepEqual(again.problems, []);
});

test('file store: an item whose header block starts its message keeps only its length on the line (its bodies after every summary), and reads back whole', async (t) => {
  const dir = await tmpDir(t);
  const store = await FileStore.open(dir, 'admin');
  const w = await store.workspaces.create(ws('acme'));
  const head =
    'Received: from mail.rcpt.test\r\n\tby mx.svc.test; Mon, 2 Jan 2026 10:00:00 +0000\r\nSubject: Ça va \xe9\r\nFrom: jane@rcpt.test';
  const raw = Buffer.from(`${head}\r\n\r\nHello\r\n`, 'latin1');
  const cut = { ...item(w.id, null), headers: head };
  const other = { ...item(w.id, null), headers: 'Subject: not the start' };
  await store.inbox.receive({ raw, items: [cut, other], updates: [], outbox: [], events: [], suppressions: [] });
  const [, record] = (await readFile(join(dir, 'inbox', '2026-01-02.jsonl'), 'utf8')).split('\n');
  const line = JSON.parse(record!);
  // The items hold what a list shows; their bodies come last, apart, so a list reads a line only up to them.
  assert.equal(line.items[0].text, undefined);
  assert.equal(Object.keys(line).at(-1), 'item_bodies');
  const [a, b] = line.item_bodies;
  assert.equal(a.headers, undefined);
  assert.equal(a.headers_length, head.length);
  assert.equal(b.headers, 'Subject: not the start');
  assert.equal((await store.inbox.get(w.id, cut.id))!.headers, head);
  assert.equal((await store.inbox.get(w.id, other.id))!.headers, 'Subject: not the start');
  await store.close();
  const again = await FileStore.open(dir, 'admin');
  t.after(() => again.close());
  const back = (await again.inbox.get(w.id, cut.id))!;
  assert.deepEqual(back, { ...cut, raw: raw.toString('base64') });
  assert.deepEqual(again.problems, []);
});

test('file store: many deletions, in memory and replayed: the lists stay in order and whole as deleted items are dropped from them', async (t) => {
  const dir = await tmpDir(t);
  const store = await FileStore.open(dir, 'admin');
  const w = await store.workspaces.create(ws('acme'));
  const items = Array.from({ length: 40 }, (_, i) => ({
    ...item(w.id, null),
    subject: `n${i}`,
    created_at: `2026-01-02T10:00:${String(i).padStart(2, '0')}.000Z`,
  }));
  for (const i of items)
    await store.inbox.receive({ raw: Buffer.from(i.subject), items: [i], updates: [], outbox: [], events: [], suppressions: [] });
  // Every item but each fourth: enough to compact the lists more than once on the way.
  const kept = items.filter((_, n) => n % 4 === 0);
  for (const i of items.filter((_, n) => n % 4 !== 0)) assert.equal(await store.inbox.remove(w.id, i.id), true);
  const expect = kept.map((i) => i.subject).reverse();
  const subjects = async (s: FileStore) =>
    (await s.inbox.list(w.id, { folder: 'inbox', limit: 100, offset: 0 })).data.map((i) => i.subject);
  assert.deepEqual(await subjects(store), expect);
  assert.deepEqual(
    (await store.inbox.list(w.id, { folder: 'inbox', limit: 2, offset: 3 })).data.map((i) => i.subject),
    expect.slice(3, 5),
  );
  assert.equal(await store.inbox.usage(w.id), kept.length * STORAGE_MIN_CHARGE);
  assert.equal((await store.inbox.threads(w.id, { limit: 100, offset: 0 })).total, kept.length);
  await store.close();
  const again = await FileStore.open(dir, 'admin');
  t.after(() => again.close());
  assert.deepEqual(await subjects(again), expect);
  assert.equal(await again.inbox.usage(w.id), kept.length * STORAGE_MIN_CHARGE);
});
