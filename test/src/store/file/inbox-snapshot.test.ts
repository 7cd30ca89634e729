// The file store's snapshot of its inbox index: a store reopened from it answers as one that read
// its journal; lines written after it (a crash, a stale snapshot) are read; replies and bounces in it
// still change their records; a day dropped since leaves with its items; a file rewritten since, or a
// damaged snapshot, and the journal is read whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFile, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileStore } from '../../../../src/store/file/file-store.js';
import type { InboxItem } from '../../../../src/model/inbox.js';
import { tmpDir } from '../../../helpers/tmp.js';
import { sentToJaneAndBob } from '../conformance/fixtures.js';

const item = (workspace_id: string, thread_id: string, created_at: string, over: Partial<InboxItem> = {}): InboxItem => ({
  id: randomUUID(),
  workspace_id,
  folder: 'inbox',
  kind: 'mail',
  thread_id,
  from: 'jane@rcpt.test',
  to: ['hello@acme.test'],
  cc: [],
  subject: `at ${created_at}`,
  message_id: `${randomUUID()}@rcpt.test`,
  size: 100,
  message_ref: null,
  note: null,
  created_at,
  in_reply_to: null,
  references: [],
  headers: 'Subject: x',
  text: 'hi',
  html: null,
  envelope: { mail_from: 'jane@rcpt.test', rcpt_to: ['hello@acme.test'], remote_ip: null },
  raw: null,
  ...over,
});
const deliver = (items: InboxItem[]) => ({
  raw: Buffer.from('Subject: x\r\n\r\nhi\r\n'),
  items,
  updates: [],
  outbox: [],
  events: [],
  suppressions: [],
});

/** Everything the inbox answers for a workspace. */
async function answers(store: FileStore, ws: string) {
  const inbox = await store.inbox.list(ws, { folder: 'inbox', limit: 1000, offset: 0 });
  return {
    inbox,
    sent: await store.inbox.list(ws, { folder: 'sent', limit: 1000, offset: 0 }),
    threads: await store.inbox.threads(ws, { limit: 1000, offset: 0 }),
    usage: await store.inbox.usage(ws),
    items: await Promise.all(inbox.data.map((s) => store.inbox.get(ws, s.id))),
  };
}

const SNAPSHOT = (dir: string) => join(dir, 'inbox', 'index.snapshot');
const open = (dir: string) => FileStore.open(dir, 'admin', { inboxSnapshotMin: 1 });

test('file store: the inbox index snapshot: reopened from it, the same answers; a reply in it still counted; later lines read; a stale or damaged one set aside', async (t) => {
  const dir = await tmpDir(t);
  let store = await open(dir);
  const { a, send, jane } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');
  const thread = (await store.inbox.threadOf(a.id, [send.content.message_id]))!;
  const reply = item(a.id, thread, '2026-01-02T09:00:00.000Z', { kind: 'reply', message_ref: jane.id });
  await store.inbox.receive({
    ...deliver([reply]),
    events: [
      {
        id: randomUUID(),
        workspace_id: a.id,
        message_id: jane.id,
        kind: 'reply',
        prefetch: false,
        source: 'human',
        reason: 'In-Reply-To',
        url: null,
        ip: null,
        user_agent: null,
        created_at: reply.created_at,
      },
    ],
  });
  const shared = randomUUID();
  for (let i = 0; i < 30; i++)
    await store.inbox.receive(
      deliver([item(a.id, i % 3 ? randomUUID() : shared, `2026-01-0${2 + Math.floor(i / 10)}T10:00:${String(i).padStart(2, '0')}.000Z`)]),
    );
  const gone = (await store.inbox.list(a.id, { folder: 'inbox', limit: 1, offset: 4 })).data[0]!;
  assert.equal(await store.inbox.remove(a.id, gone.id), true);
  const before = await answers(store, a.id);
  await store.close();
  assert.ok((await stat(SNAPSHOT(dir))).size > 0, 'a snapshot is written at close');

  store = await open(dir);
  assert.deepEqual(await answers(store, a.id), before);
  assert.equal((await store.messages.get(a.id, jane.id))!.reply_count, 1, 'the reply, in the snapshot, read again for its record');
  assert.deepEqual(
    (await store.inbox.about(a.id, jane.id)).map((s) => s.id),
    [reply.id],
  );
  assert.equal(await store.inbox.get(a.id, gone.id), null);
  // Lines after a snapshot (as after a crash, when the snapshot kept is an older one) are read.
  await copyFile(SNAPSHOT(dir), `${SNAPSHOT(dir)}.old`);
  const late = item(a.id, shared, '2026-01-04T12:00:00.000Z');
  await store.inbox.receive(deliver([late]));
  const gone2 = before.inbox.data[7]!;
  assert.equal(await store.inbox.remove(a.id, gone2.id), true);
  const after = await answers(store, a.id);
  await store.close();
  await copyFile(`${SNAPSHOT(dir)}.old`, SNAPSHOT(dir));
  store = await open(dir);
  assert.deepEqual(await answers(store, a.id), after);
  assert.equal(after.inbox.data[0]!.id, late.id);
  assert.deepEqual(
    [after.threads.data[0]!.thread_id, after.threads.data[0]!.count],
    [shared, after.inbox.data.filter((s) => s.thread_id === shared).length],
  );

  // A day dropped since the snapshot (a crash before the next one): its items leave with it.
  await copyFile(SNAPSHOT(dir), `${SNAPSHOT(dir)}.old`);
  assert.equal(await store.inbox.purge('2026-01-03T00:00:00.000Z'), after.inbox.data.filter((s) => s.created_at < '2026-01-03').length);
  const purged = await answers(store, a.id);
  await store.close();
  await copyFile(`${SNAPSHOT(dir)}.old`, SNAPSHOT(dir));
  store = await open(dir);
  assert.deepEqual(await answers(store, a.id), purged);
  await store.close();

  // A journal file rewritten since (a repair makes a new file): the snapshot no longer holds, the journal is read whole.
  const file = join(dir, 'inbox', '2026-01-04.jsonl');
  await copyFile(file, `${file}.new`);
  await rename(`${file}.new`, file);
  store = await open(dir);
  assert.deepEqual(await answers(store, a.id), purged);
  await store.close();

  // A damaged snapshot is not read.
  const bytes = await readFile(SNAPSHOT(dir));
  bytes[bytes.length - 3]! ^= 0xff;
  await writeFile(SNAPSHOT(dir), bytes);
  store = await open(dir);
  t.after(() => store.close());
  assert.deepEqual(await answers(store, a.id), purged);
  assert.deepEqual(store.problems, []);
});
