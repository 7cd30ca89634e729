import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { DurableJsonFile } from '../../../../src/store/file/durable-json.js';
import { SqliteStore } from '../../../../src/store/sqlite/sqlite-store.js';
import { DATA_FILE } from '../../../../src/store/location.js';
import { isSvcError } from '../../../../src/errors.js';
import { LockHeldError } from '../../../../src/store/file/lock.js';
import { tmpDir } from '../../../helpers/tmp.js';
import { fromRoot } from '../../../helpers/root.js';

test('concurrent writes share file writes and all resolve after the last state is on disk', async (t) => {
  const dir = await tmpDir(t);
  const file = new DurableJsonFile<{ n: number[] }>(join(dir, 'doc.json'));
  const data = { n: [] as number[] };
  const writes = [];
  for (let i = 0; i < 200; i++) {
    data.n.push(i);
    writes.push(file.write(data));
  }
  await Promise.all(writes);
  // The first write starts at once; the 199 requested meanwhile share one more.
  assert.equal(file.writes, 2);
  assert.equal(JSON.parse(await readFile(join(dir, 'doc.json'), 'utf8')).n.length, 200);
  assert.deepEqual(await readdir(dir), ['doc.json'], 'no temp file left behind');
});

test('a data file that cannot be parsed is reported and never overwritten', async (t) => {
  const dir = await tmpDir(t);
  const garbage = '{"version":1,"workspaces":[{"id":';
  await writeFile(join(dir, DATA_FILE), garbage);
  await assert.rejects(
    SqliteStore.open(dir, 'admin'),
    (e) => isSvcError(e) && e.kind === 'store_corrupt' && /cannot be parsed/.test(e.message),
  );
  assert.equal(await readFile(join(dir, DATA_FILE), 'utf8'), garbage);
  // The lock was released: a second try fails the same way, not with "locked".
  await assert.rejects(SqliteStore.open(dir, 'admin'), (e) => isSvcError(e) && e.kind === 'store_corrupt');
});

test('a JSON file that is not an svc store is refused and left alone', async (t) => {
  const dir = await tmpDir(t);
  await writeFile(join(dir, DATA_FILE), '{"hello":"world"}');
  await assert.rejects(SqliteStore.open(dir, 'admin'), (e) => isSvcError(e) && e.kind === 'store_corrupt');
  assert.equal(await readFile(join(dir, DATA_FILE), 'utf8'), '{"hello":"world"}');
});

test('a temp file left by a crash mid-write is ignored: the previous state is read', async (t) => {
  const dir = await tmpDir(t);
  const store = await SqliteStore.open(dir, 'admin');
  await store.workspaces.create({ id: 'w1', name: 'acme', plan: 'trial', created_at: '2026-01-01T00:00:00.000Z' });
  await store.close();
  // What a process killed between writing the temp file and renaming it leaves behind.
  await writeFile(join(dir, `.${DATA_FILE}.99999.tmp`), '{"version":1,"workspaces":[{"id":"w2","na');
  const again = await SqliteStore.open(dir, 'admin');
  t.after(() => again.close());
  assert.deepEqual(
    (await again.workspaces.list()).map((w) => w.name),
    ['acme'],
  );
});

test('SIGKILL during a stream of writes: the file parses and holds every acknowledged write', async (t) => {
  const dir = await tmpDir(t);
  const writer = fromRoot('test/helpers/crash-writer.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', writer, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acknowledged: string[] = [];
  await new Promise<void>((resolve, reject) => {
    // A writer that dies by itself (it could not open the store) fails the test at once.
    const early = (code: number | null) => reject(new Error(`the writer exited ${code} after ${acknowledged.length} writes`));
    child.once('exit', early);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line !== 'ready') acknowledged.push(line);
      if (acknowledged.length === 300) {
        child.off('exit', early);
        child.kill('SIGKILL');
        resolve();
      }
    });
  });
  await new Promise((r) => child.on('exit', r));
  // The dead writer's lock went with it: the kernel closed its descriptor as it died.
  const store = await SqliteStore.open(dir, 'admin');
  t.after(() => store.close());
  const ws = await store.workspaces.getByName('crash');
  assert.ok(ws);
  const kept = new Set((await store.keys.listByWorkspace(ws.id)).map((k) => k.id));
  const lost = acknowledged.filter((id) => !kept.has(id));
  assert.deepEqual(lost, [], 'every acknowledged write survived');
});
