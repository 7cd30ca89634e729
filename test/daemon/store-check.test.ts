// `svc store check` on the embedded store: svc.json's shape, and svc.db as SQLite itself checks it
// (integrity_check, foreign_key_check) and its schema version. Each kind of damage is found and
// named; a store a daemon has just used is clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sending, settled, mail } from '../helpers/sending.js';
import { plainMail, transact } from '../helpers/mx.js';
import { checkStore } from '../../src/store/sqlite/check.js';
import { tmpDir } from '../helpers/tmp.js';
import { cp } from 'node:fs/promises';

test('store check: a clean store is ok; a dangling row, a damaged page, a newer schema and a bad svc.json are each named', async (t) => {
  const s = await sending(t);
  const r = await s.post(mail(['jane@rcpt.test']));
  await settled(s, r.body.id);
  assert.match(
    (await transact(s.daemon.url('mx'), 'a@elsewhere.test', ['hello@acme.test'], plainMail('a@elsewhere.test', 'hello@acme.test'))).end,
    /^250 /,
  );
  const store = s.daemon.service.deps.config.store;
  assert.equal(store.kind, 'file');
  const dir = (store as { dir: string }).dir;
  await s.daemon.close();
  assert.deepEqual(await checkStore(dir), { store: `file:${dir}`, ok: true, problems: [] }, 'clean after a daemon used it');

  /** A copy of the store, damaged by `harm`, and what check says of it. */
  const damaged = async (harm: (copy: string) => Promise<void>) => {
    const copy = await tmpDir(t);
    await cp(dir, copy, { recursive: true });
    await harm(copy);
    return checkStore(copy);
  };

  // A delivery attempt of a message that is gone (written with the references unchecked).
  const dangling = await damaged(async (copy) => {
    const db = new Database(join(copy, 'svc.db'));
    db.pragma('foreign_keys = OFF');
    db.prepare(
      `INSERT INTO delivery_attempts (id, workspace_id, message_id, attempt, at, duration_ms, outcome, reply) VALUES ('a1', 'w', 'gone', 1, '2026-01-01T00:00:00.000Z', 1, 'sent', '250')`,
    ).run();
    db.close();
  });
  assert.equal(dangling.ok, false);
  assert.deepEqual(
    dangling.problems.map((p) => [p.kind, p.file]),
    [['database', 'svc.db']],
  );
  assert.match(dangling.problems[0]!.reason, /delivery_attempts row \d+ points at no messages/);

  // A page overwritten in the middle of the file (a disk that lost a write).
  const torn = await damaged(async (copy) => {
    const path = join(copy, 'svc.db');
    const size = (await readFile(path)).length;
    const fh = await open(path, 'r+');
    await fh.write(Buffer.alloc(4096, 0x5a), 0, 4096, Math.floor(size / 4096 / 2) * 4096);
    await fh.close();
  });
  assert.equal(torn.ok, false);
  assert.ok(
    torn.problems.every((p) => p.kind === 'database' && p.file === 'svc.db'),
    JSON.stringify(torn.problems),
  );

  // A database a newer svc wrote.
  const newer = await damaged(async (copy) => {
    const db = new Database(join(copy, 'svc.db'));
    db.pragma('user_version = 999');
    db.close();
  });
  assert.deepEqual(
    newer.problems.map((p) => p.kind),
    ['schema'],
  );

  // svc.json with a record of the wrong shape.
  const doc = await damaged(async (copy) => {
    const path = join(copy, 'svc.json');
    const d = JSON.parse(await readFile(path, 'utf8'));
    d.keys = [{ id: 1 }];
    await writeFile(path, JSON.stringify(d));
  });
  assert.deepEqual(
    doc.problems.map((p) => [p.kind, p.file]),
    [['data_file', 'svc.json']],
  );
});
