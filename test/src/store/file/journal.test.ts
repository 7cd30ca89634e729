import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Journal, dayOf } from '../../../../src/store/file/journal.js';
import { isSvcError } from '../../../../src/errors.js';
import { tmpDir } from '../../../helpers/tmp.js';

interface Rec {
  id: string;
  at: string;
}

test('records go to their day, in order, and concurrent appends share writes', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  const recs: Rec[] = Array.from({ length: 300 }, (_, i) => ({ id: `m${i}`, at: i < 200 ? '2026-03-01T23:59:59.000Z' : '2026-03-02T00:00:00.000Z' }));
  await Promise.all(recs.map((r) => j.append(dayOf(r.at), [r])));
  assert.deepEqual(await j.partitions(), ['2026-03-01', '2026-03-02']);
  assert.deepEqual((await j.read('2026-03-01')).map((r) => r.id), recs.slice(0, 200).map((r) => r.id));
  assert.equal((await j.read('2026-03-02')).length, 100);
  assert.deepEqual(await j.read('2026-03-03'), []);
});

test('an append writes only itself: the file grows by the record, nothing is rewritten', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  const big = Array.from({ length: 5000 }, (_, i) => ({ id: `m${i}`, at: '2026-03-01T00:00:00.000Z' }));
  await j.append('2026-03-01', big);
  const before = (await stat(join(dir, '2026-03-01.jsonl'))).size;
  const one = { id: 'last', at: '2026-03-01T00:00:01.000Z' };
  await j.append('2026-03-01', [one]);
  const after = (await stat(join(dir, '2026-03-01.jsonl'))).size;
  assert.equal(after - before, JSON.stringify(one).length + 1);
});

test('a torn last line from a crash is cut before the next append and skipped on read', async (t) => {
  const dir = await tmpDir(t);
  await writeFile(join(dir, '2026-03-01.jsonl'), '{"id":"a","at":"x"}\n{"id":"b","a');
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  assert.deepEqual((await j.read('2026-03-01')).map((r) => r.id), ['a']);
  await j.append('2026-03-01', [{ id: 'c', at: 'y' }]);
  assert.deepEqual((await j.read('2026-03-01')).map((r) => r.id), ['a', 'c']);
  assert.equal(await readFile(join(dir, '2026-03-01.jsonl'), 'utf8'), '{"id":"a","at":"x"}\n{"id":"c","at":"y"}\n');
});

test('a damaged line in the middle is reported, not skipped', async (t) => {
  const dir = await tmpDir(t);
  await appendFile(join(dir, '2026-03-01.jsonl'), '{"id":"a"}\nGARBAGE\n{"id":"c"}\n');
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  await assert.rejects(j.read('2026-03-01'), (e) => isSvcError(e) && e.kind === 'store_corrupt' && /line 2/.test(e.message));
});

test('drop removes a whole day', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  await j.append('2026-03-01', [{ id: 'a', at: '' }]);
  await j.append('2026-03-02', [{ id: 'b', at: '' }]);
  await j.drop('2026-03-01');
  assert.deepEqual(await readdir(dir), ['2026-03-02.jsonl']);
  assert.throws(() => j.append('../x', []), /bad journal partition/);
});

test('appendLocated and readLocated agree on where each line lies, and readAt reads it back', async (t) => {
  const dir = await tmpDir(t);
  // A torn tail is cut first, so offsets count from what is really in the file.
  await writeFile(join(dir, '2026-03-01.jsonl'), '{"id":"a","at":"x"}\n{"id":"b","a');
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  // Concurrent appends share one write; multi-byte text makes bytes and characters differ.
  const recs: Rec[] = Array.from({ length: 50 }, (_, i) => ({ id: `m${i} héllo ✓`, at: 'y' }));
  const located = await Promise.all(recs.map((r) => j.appendLocated('2026-03-01', r)));
  for (let i = 0; i < recs.length; i++) assert.deepEqual(await j.readAt(located[i]!), recs[i]);
  const all = await j.readLocated('2026-03-01');
  assert.deepEqual(all.map((l) => l.record.id), ['a', ...recs.map((r) => r.id)]);
  assert.deepEqual(all.slice(1).map((l) => l.at), located);
  // After a reopen the next append continues from the real end of the file.
  await j.close();
  const j2 = await Journal.open<Rec>(dir);
  t.after(() => j2.close());
  const next = await j2.appendLocated('2026-03-01', { id: 'z', at: 'y' });
  assert.deepEqual(await j2.readAt(next), { id: 'z', at: 'y' });
  assert.deepEqual(await j2.readAt(located[7]!), recs[7]);
  // A dropped day has nothing to read back.
  await j2.drop('2026-03-01');
  assert.equal(await j2.readAt(next), null);
});
