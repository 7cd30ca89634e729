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
