// The embedded store (svc.json and SQLite): the conformance suite Postgres passes too, and what is
// the embedded store's own: its database's settings and schema version, and old stores refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpDir } from '../../helpers/tmp.js';
import { isSvcError } from '../../../src/errors.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { openSqlite, DB_FILE } from '../../../src/store/sqlite/database.js';
import { storeConformance } from './conformance/index.js';
import { batch, list, sub, ws } from './conformance/fixtures.js';

storeConformance<string>({
  name: 'sqlite',
  backing: (t) => tmpDir(t),
  open: (dir) => SqliteStore.open(dir, 'serve'),
});

test('sqlite: the database is in WAL mode with synchronous=FULL, foreign keys on and a busy timeout', async (t) => {
  const dir = await tmpDir(t);
  const f = openSqlite(dir);
  t.after(() => f.close());
  assert.equal(f.raw.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(f.raw.pragma('synchronous', { simple: true }), 2);
  assert.equal(f.raw.pragma('foreign_keys', { simple: true }), 1);
  assert.ok((f.raw.pragma('busy_timeout', { simple: true }) as number) > 0);
});

test('sqlite: a database written by a newer svc is refused, and left as it was', async (t) => {
  const dir = await tmpDir(t);
  (await openSqlite(dir)).close();
  const raw = new Database(join(dir, DB_FILE));
  raw.pragma('user_version = 999');
  raw.close();
  assert.throws(
    () => openSqlite(dir),
    (e) => isSvcError(e) && /newer than this svc knows/.test(e.message),
  );
  const again = new Database(join(dir, DB_FILE));
  assert.equal(again.pragma('user_version', { simple: true }), 999);
  again.close();
});

test("sqlite: a store of the development builds' journal format is refused in one line, and left as it was", async (t) => {
  const dir = await tmpDir(t);
  (await SqliteStore.open(dir, 'admin')).close();
  await mkdir(join(dir, 'mail'));
  await writeFile(join(dir, 'mail', '2026-01-01.jsonl'), '{"t":"accept"}\n');
  await assert.rejects(
    SqliteStore.open(dir, 'admin'),
    (e) =>
      isSvcError(e) &&
      e.kind === 'store_corrupt' &&
      /journal format of svc's development builds \(mail\/\)/.test(e.message) &&
      !e.message.includes('\n'),
  );
  assert.equal(await readFile(join(dir, 'mail', '2026-01-01.jsonl'), 'utf8'), '{"t":"accept"}\n');
  // The lock was let go of: the directory can be opened once the old journals are moved away.
  await rm(join(dir, 'mail'), { recursive: true });
  await (await SqliteStore.open(dir, 'admin')).close();
});

test('sqlite: the counts kept beside messages and subscribers follow every insert, status change and delete', async (t) => {
  const dir = await tmpDir(t);
  const store = await SqliteStore.open(dir, 'serve');
  t.after(() => store.close());
  const a = await store.workspaces.create(ws('acme'));
  const send = batch(a.id, ['jane@rcpt.test', 'bob@rcpt.test', 'carol@rcpt.test'], '2026-01-01T10:00:00.000Z');
  await store.messages.accept(send);
  await store.messages.accept(batch(a.id, ['old@rcpt.test'], '2025-06-01T10:00:00.000Z'));
  const [jane] = send.messages;
  await store.queue.complete(send.jobs[0]!.id, {
    updates: [{ id: jane!.id, status: 'sent', sent_at: '2026-01-01T10:00:05.000Z' }],
    events: [],
    suppressions: [],
  });
  assert.equal(await store.messages.purge('2026-01-01T00:00:00.000Z'), 1);
  const news = await store.lists.create(list(a.id, 'news'));
  const same = { name: '', updated_at: '2026-01-02T00:00:00.000Z' };
  for (const [email, status] of [
    ['jane@rcpt.test', 'active'],
    ['bob@rcpt.test', 'pending'],
    ['carol@rcpt.test', 'active'],
  ] as const)
    await store.subscribers.upsert(sub(news, email, status), same, 100);
  const page = await store.subscribers.list(a.id, news.id, { limit: 10, offset: 0 });
  await store.subscribers.setStatus(a.id, news.id, page.data[0]!.id, 'unsubscribed', '2026-01-03T00:00:00.000Z');

  const raw = new Database(join(dir, DB_FILE), { readonly: true });
  t.after(() => raw.close());
  const kept = (table: string, key: string) => raw.prepare(`SELECT ${key} AS k, status, n FROM ${table} WHERE n <> 0 ORDER BY 1, 2`).all();
  const counted = (table: string, key: string) =>
    raw.prepare(`SELECT ${key} AS k, status, count(*) AS n FROM ${table} GROUP BY 1, 2 ORDER BY 1, 2`).all();
  assert.deepEqual(kept('message_counts', 'workspace_id'), counted('messages', 'workspace_id'));
  assert.deepEqual(
    counted('messages', 'workspace_id').map((r) => `${(r as { status: string }).status}:${(r as { n: number }).n}`),
    ['queued:2', 'sent:1'],
  );
  assert.deepEqual(kept('subscriber_counts', 'list_id'), counted('subscribers', 'list_id'));
  assert.equal((await store.messages.list(a.id, { limit: 1, offset: 0, status: 'queued' })).total, 2);
  assert.equal((await store.subscribers.list(a.id, news.id, { limit: 1, offset: 0, status: 'active' })).total, 1);
  assert.equal((await store.lists.get(a.id, news.id))?.subscriber_count, 3);
});
