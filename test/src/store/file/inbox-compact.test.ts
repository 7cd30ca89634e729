// The file store's inbox compaction: deleted items' bytes leave the disk; reads, receives and
// deletions running while a segment is rewritten get the right answers; a store reopened with the
// snapshot written after it, or without one, answers the same; a segment with an unreadable line is
// left as it is (for `svc store repair`); a rewrite left by a crash is removed at open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileStore } from '../../../../src/store/file/file-store.js';
import type { InboxItem } from '../../../../src/model/inbox.js';
import { tmpDir } from '../../../helpers/tmp.js';
import { sentToJaneAndBob } from '../conformance/fixtures.js';

const DAY = '2026-01-02';
const raw = (n: number) => Buffer.from(`Subject: ${n}\r\n\r\n${String(n % 10).repeat(30 * 1024)}\r\n`);
const item = (workspace_id: string, n: number): InboxItem => ({
  id: randomUUID(),
  workspace_id,
  folder: 'inbox',
  kind: 'mail',
  thread_id: randomUUID(),
  from: 'jane@rcpt.test',
  to: ['hello@acme.test'],
  cc: [],
  subject: `n${n}`,
  message_id: `${randomUUID()}@rcpt.test`,
  size: raw(n).length,
  message_ref: null,
  note: null,
  created_at: `${DAY}T10:00:${String(n % 60).padStart(2, '0')}.${String(n).padStart(3, '0')}Z`,
  in_reply_to: null,
  references: [],
  headers: `Subject: n${n}`,
  text: `text ${n}`,
  html: null,
  envelope: { mail_from: 'jane@rcpt.test', rcpt_to: ['hello@acme.test'], remote_ip: null },
  raw: null,
});
const deliver = (i: InboxItem, n: number) => ({ raw: raw(n), items: [i], updates: [], outbox: [], events: [], suppressions: [] });
const segment = (dir: string) => join(dir, 'inbox', `${DAY}.jsonl`);
const open = (dir: string, inboxSnapshotMin = 1) => FileStore.open(dir, 'admin', { inboxSnapshotMin });

/** Every live item read whole, newest first. */
const everything = async (store: FileStore, ws: string) =>
  Promise.all((await store.inbox.list(ws, { folder: 'inbox', limit: 1000, offset: 0 })).data.map((s) => store.inbox.get(ws, s.id)));

test('file store: inbox compaction: deleted bytes leave the disk; reads, receives and deletions during it answer right; reopened with or without the snapshot, the same', async (t) => {
  const dir = await tmpDir(t);
  let store = await open(dir);
  const { a } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');
  const items: InboxItem[] = [];
  for (let n = 0; n < 60; n++) {
    const i = item(a.id, n);
    items.push(i);
    await store.inbox.receive(deliver(i, n));
  }
  for (const i of items.filter((_, n) => n % 3 !== 0)) assert.equal(await store.inbox.remove(a.id, i.id), true);
  const live = items.filter((_, n) => n % 3 === 0);
  const before = (await stat(segment(dir))).size;
  const expected = await everything(store, a.id);
  assert.equal(expected.length, live.length);

  // Reads, a receive and a delete over and over while the compaction runs: every answer right.
  const extra = item(a.id, 100);
  let compacting = true;
  const compaction = store.inbox.compact().finally(() => (compacting = false));
  let rounds = 0;
  let removed = false;
  do {
    const reads = await Promise.all(live.map((i) => store.inbox.get(a.id, i.id)));
    assert.deepEqual(
      reads.map((r) => r?.text ?? null),
      live.map((i, k) => (k === 1 && removed ? null : i.text)),
    );
    if (rounds++ === 1) {
      await Promise.all([store.inbox.receive(deliver(extra, 100)), store.inbox.remove(a.id, live[1]!.id).then((r) => (removed = r))]);
    }
  } while (compacting || rounds < 3);
  assert.ok((await compaction) > 0);
  assert.equal(removed, true);
  const after = (await stat(segment(dir))).size;
  assert.ok(after < before / 2, `${before} → ${after} bytes`);
  const now = await everything(store, a.id);
  assert.deepEqual(
    now.map((i) => i!.id),
    [
      extra.id,
      ...live
        .filter((_, k) => k !== 1)
        .map((i) => i.id)
        .reverse(),
    ],
  );
  assert.equal(now.at(-1)!.raw, raw(0).toString('base64'));

  // Reopened from the snapshot written at close, and from the journal alone: the same answers.
  await store.close();
  store = await open(dir);
  assert.deepEqual(await everything(store, a.id), now);
  await store.close();
  await rm(join(dir, 'inbox', 'index.snapshot'));
  store = await open(dir);
  t.after(() => store.close());
  assert.deepEqual(await everything(store, a.id), now);
  assert.equal(
    await store.inbox.usage(a.id),
    now.reduce((b, i) => b + Math.max(i!.size, 4096), 0),
  );
});

test('file store: inbox compaction leaves a segment with an unreadable line as it is; a rewrite a crash left behind is removed at open', async (t) => {
  const dir = await tmpDir(t);
  let store = await open(dir);
  const { a } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');
  const items = [0, 1, 2, 3].map((n) => item(a.id, n));
  for (const [n, i] of items.entries()) await store.inbox.receive(deliver(i, n));
  await store.close();
  await appendFile(segment(dir), 'not a line of the journal\n');
  await writeFile(`${segment(dir)}.rewrite`, 'half a rewrite');
  store = await open(dir);
  t.after(() => store.close());
  assert.ok(!(await readdir(join(dir, 'inbox'))).some((f) => f.endsWith('.rewrite')));
  for (const i of items.slice(1)) assert.equal(await store.inbox.remove(a.id, i.id), true);
  const before = (await stat(segment(dir))).size;
  assert.equal(await store.inbox.compact(), 0);
  assert.equal((await stat(segment(dir))).size, before);
  assert.equal((await store.inbox.get(a.id, items[0]!.id))?.text, 'text 0');
});
