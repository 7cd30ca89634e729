import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Journal, dayOf, type LineAt, type OpenFile } from '../../../../src/store/file/journal.js';
import { open, type FileHandle } from 'node:fs/promises';
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
  const recs: Rec[] = Array.from({ length: 300 }, (_, i) => ({
    id: `m${i}`,
    at: i < 200 ? '2026-03-01T23:59:59.000Z' : '2026-03-02T00:00:00.000Z',
  }));
  await Promise.all(recs.map((r) => j.append(dayOf(r.at), [r])));
  assert.deepEqual(await j.partitions(), ['2026-03-01', '2026-03-02']);
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    recs.slice(0, 200).map((r) => r.id),
  );
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
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a'],
  );
  await j.append('2026-03-01', [{ id: 'c', at: 'y' }]);
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a', 'c'],
  );
  assert.equal(await readFile(join(dir, '2026-03-01.jsonl'), 'utf8'), '{"id":"a","at":"x"}\n{"id":"c","at":"y"}\n');
});

test('a torn last line of any length (9 MB, a relay message cut by a crash) is cut at its start, so the next append stands alone', async (t) => {
  const dir = await tmpDir(t);
  const torn = `{"id":"big","at":"x","blob":"${'z'.repeat(9 * 1024 * 1024)}`;
  await writeFile(join(dir, '2026-03-01.jsonl'), `{"id":"a","at":"x"}\n${torn}`);
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  await j.append('2026-03-01', [{ id: 'after', at: 'y' }]);
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a', 'after'],
  );
  assert.equal(await readFile(join(dir, '2026-03-01.jsonl'), 'utf8'), '{"id":"a","at":"x"}\n{"id":"after","at":"y"}\n');
  // A file that is one torn line from its first byte is cut to nothing.
  await writeFile(join(dir, '2026-03-02.jsonl'), torn);
  await j.append('2026-03-02', [{ id: 'only', at: 'z' }]);
  assert.equal(await readFile(join(dir, '2026-03-02.jsonl'), 'utf8'), '{"id":"only","at":"z"}\n');
});

test('a damaged line in the middle is skipped and reported with its place, and the file is left as it is', async (t) => {
  const dir = await tmpDir(t);
  const text = '{"id":"a"}\nGARBAGE\n{"id":7}\n{"id":"c"}\n';
  await appendFile(join(dir, '2026-03-01.jsonl'), text);
  const j = await Journal.open<Rec>(dir, { validate: (r) => (typeof (r as Rec).id === 'string' ? null : 'id is not a string') });
  t.after(() => j.close());
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a', 'c'],
  );
  assert.deepEqual(
    j.problems.map((p) => [p.line, p.offset, p.raw.toString(), p.reason.split(' (')[0]]),
    [
      [2, 11, 'GARBAGE', 'not JSON'],
      [3, 19, '{"id":7}', 'id is not a string'],
    ],
  );
  assert.equal(await readFile(join(dir, '2026-03-01.jsonl'), 'utf8'), text);
});

test('drop removes a whole day', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  await j.append('2026-03-01', [{ id: 'a', at: '' }]);
  await j.append('2026-03-02', [{ id: 'b', at: '' }]);
  await j.drop('2026-03-01');
  assert.deepEqual(await readdir(dir), ['2026-03-02.jsonl']);
  await assert.rejects(j.append('../x', []), /bad journal partition/);
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
  assert.deepEqual(
    all.map((l) => l.record.id),
    ['a', ...recs.map((r) => r.id)],
  );
  assert.deepEqual(
    all.slice(1).map((l) => l.at),
    located,
  );
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

test('a record with an attachment: the attachment is on the line before, passed over by reads and read back from where the record lies', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir, { validate: (r) => (typeof (r as Rec).id === 'string' ? null : 'id is not a string') });
  t.after(() => j.close());
  const blobs = Array.from({ length: 20 }, (_, i) => Buffer.alloc(1000 + i, i).toString('base64'));
  // Concurrent, with plain records in between: one write, each record's place past its attachment.
  const located = await Promise.all(
    blobs.flatMap((b, i) => [
      j.appendLocated('2026-03-01', { id: `m${i}`, at: 'x' }, b),
      j.appendLocated('2026-03-01', { id: `p${i}`, at: 'x' }),
    ]),
  );
  for (let i = 0; i < blobs.length; i++) {
    assert.deepEqual(await j.readAt(located[2 * i]!), { id: `m${i}`, at: 'x' });
    assert.deepEqual(await j.attachmentAt(located[2 * i]!, blobs[i]!.length), blobs[i]);
  }
  const text = await readFile(join(dir, '2026-03-01.jsonl'), 'latin1');
  assert.equal(text.split('\n')[0], `~${blobs[0]}`);
  // Reads see records only, and no attachment is a bad line.
  const all = await j.readLocated('2026-03-01');
  assert.equal(all.length, 40);
  assert.deepEqual(j.problems, []);
  assert.deepEqual(
    all.filter((l) => l.record.id.startsWith('m')).map((l) => l.at),
    located.filter((_, i) => i % 2 === 0),
  );
  // An attachment whose record a crash never wrote is passed over like any other; a record
  // without its attachment where it says is store_corrupt, never other bytes.
  await appendFile(join(dir, '2026-03-01.jsonl'), `~${blobs[0]}\n`);
  const j2 = await Journal.open<Rec>(dir);
  t.after(() => j2.close());
  const after = await j2.appendLocated('2026-03-01', { id: 'late', at: 'y' });
  assert.deepEqual((await j2.readLocated('2026-03-01')).map((l) => l.record.id).slice(-2), ['p19', 'late']);
  await assert.rejects(j2.attachmentAt(located[1]!, 10), (e) => isSvcError(e) && e.kind === 'store_corrupt');
  assert.deepEqual(await j2.readAt(after), { id: 'late', at: 'y' });
  await assert.rejects(j.appendLocated('2026-03-01', { id: 'n', at: 'x' }, 'a\nb'), /newline/);
});

test('one flush buffer serves flushes of every size: multi-byte text, a line larger than it, then small ones, each where it says', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir);
  t.after(() => j.close());
  const big = 'x'.repeat(5 * 1024 * 1024);
  const recs: Rec[] = [
    { id: 'é漢😀', at: 'a' },
    { id: 'big', at: big },
    ...Array.from({ length: 30 }, (_, i) => ({ id: `s${i}`, at: 'ü'.repeat(i) })),
  ];
  const located: LineAt[] = [];
  for (const r of recs.slice(0, 2))
    located.push(await j.appendLocated('2026-03-02', r, r.id === 'big' ? Buffer.from(big).toString('base64') : undefined));
  located.push(...(await Promise.all(recs.slice(2).map((r) => j.appendLocated('2026-03-02', r)))));
  for (let i = 0; i < recs.length; i++) assert.deepEqual(await j.readAt(located[i]!), recs[i]);
  assert.equal(await j.attachmentAt(located[1]!, Buffer.from(big).toString('base64').length), Buffer.from(big).toString('base64'));
  assert.deepEqual(
    (await j.read('2026-03-02')).map((r) => r.id),
    recs.map((r) => r.id),
  );
});

/**
 * A file handle whose writes follow a script: 'short' lands half of what was asked and reports it
 * (as Linux does on a nearly full disk), 'enospc' fails, 'ok' writes normally.
 */
function scripted(script: Array<'short' | 'enospc' | 'ok'>): OpenFile {
  return async (path, flags) => {
    const fh = await open(path, flags, 0o600);
    const write = fh.write.bind(fh) as (buf: Buffer, off: number, len: number) => Promise<{ bytesWritten: number; buffer: Buffer }>;
    (fh as unknown as { write: typeof write }).write = async (buf, off, len) => {
      const step = script.shift() ?? 'ok';
      if (step === 'enospc') throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      if (step === 'short') return write(buf, off, Math.max(1, Math.floor(len / 2)));
      return write(buf, off, len);
    };
    return fh as FileHandle;
  };
}

test('a short write is finished by further writes: every byte lands', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir, { openFile: scripted(['short', 'short', 'ok']) });
  t.after(() => j.close());
  await j.append('2026-03-01', [
    { id: 'a', at: 'x' },
    { id: 'b', at: 'y' },
  ]);
  await j.append('2026-03-01', [{ id: 'c', at: 'z' }]);
  assert.equal(await readFile(join(dir, '2026-03-01.jsonl'), 'utf8'), '{"id":"a","at":"x"}\n{"id":"b","at":"y"}\n{"id":"c","at":"z"}\n');
});

test('a short write followed by an error fails the whole line and leaves the file as it was; the next append succeeds', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec>(dir, { openFile: scripted(['ok', 'short', 'enospc', 'enospc', 'enospc']) });
  t.after(() => j.close());
  await j.append('2026-03-01', [{ id: 'a', at: 'x' }]);
  const before = await readFile(join(dir, '2026-03-01.jsonl'), 'utf8');
  // Two concurrent callers share the failing write: both are refused.
  const results = await Promise.allSettled([
    j.append('2026-03-01', [{ id: 'b', at: 'y' }]),
    j.appendLocated('2026-03-01', { id: 'c', at: 'y' }),
  ]);
  for (const r of results)
    assert.ok(
      r.status === 'rejected' && isSvcError(r.reason) && r.reason.kind === 'store_unavailable' && /disk is full/.test(r.reason.message),
      String(r.status === 'rejected' && r.reason),
    );
  assert.equal(await readFile(join(dir, '2026-03-01.jsonl'), 'utf8'), before, 'the torn bytes were cut back');
  await assert.rejects(j.append('2026-03-01', [{ id: 'd', at: 'y' }]), (e) => isSvcError(e) && e.kind === 'store_unavailable');
  assert.equal(await readFile(join(dir, '2026-03-01.jsonl'), 'utf8'), before);
  // Space is back: the next append works without a reopen, lands right after the last good line,
  // and its offset is right.
  const at = await j.appendLocated('2026-03-01', { id: 'e', at: 'z' });
  assert.deepEqual(await j.readAt(at), { id: 'e', at: 'z' });
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a', 'e'],
  );
  await j.close();
  const again = await Journal.open<Rec>(dir);
  t.after(() => again.close());
  assert.deepEqual(
    (await again.read('2026-03-01')).map((r) => r.id),
    ['a', 'e'],
  );
});

test('a failure in one day does not fail the lines of another day written in the same flush', async (t) => {
  const dir = await tmpDir(t);
  let failDay2 = true;
  const base = scripted([]);
  const j = await Journal.open<Rec>(dir, {
    openFile: async (path, flags) => {
      const fh = await base(path, flags);
      if (path.endsWith('2026-03-02.jsonl')) {
        (fh as unknown as { write: () => Promise<never> }).write = async () => {
          if (failDay2) throw Object.assign(new Error('EIO'), { code: 'EIO' });
          throw new Error('unreachable');
        };
      }
      return fh;
    },
  });
  t.after(() => j.close());
  const [one, two] = await Promise.allSettled([
    j.append('2026-03-01', [{ id: 'a', at: '' }]),
    j.append('2026-03-02', [{ id: 'b', at: '' }]),
  ]);
  assert.equal(one.status, 'fulfilled');
  assert.equal(two.status, 'rejected');
  failDay2 = false;
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a'],
  );
  assert.deepEqual(await j.read('2026-03-02'), []);
});

test('a partition is written in segments of bounded size: reads stream them in order, lines are read back by place, a drop takes every segment, a reopened journal goes on in the last', async (t) => {
  const dir = await tmpDir(t);
  const j = await Journal.open<Rec & { n: number }>(dir, { segmentMax: 1024 });
  const ats: LineAt[] = [];
  for (let n = 0; n < 60; n++)
    ats.push(await j.appendLocated('2026-03-01', { id: `r${n}`, at: 'x', n }, n % 10 === 0 ? 'QUJD'.repeat(50) : undefined));
  const files = (await readdir(dir)).sort();
  assert.ok(files.length >= 3, `several segments: ${files.join(' ')}`);
  assert.ok(files.includes('2026-03-01.jsonl') && files.includes('2026-03-01.1.jsonl'));
  for (const f of files) assert.ok((await stat(join(dir, f))).size <= 1024, `${f} is within the bound`);
  assert.deepEqual(await j.partitions(), ['2026-03-01']);
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.n),
    Array.from({ length: 60 }, (_, n) => n),
  );
  assert.ok(ats.some((a) => (a.segment ?? 0) >= 2));
  for (const [n, at] of ats.entries()) assert.equal((await j.readAt(at))!.n, n);
  assert.equal(await j.attachmentAt(ats[50]!, 200), 'QUJD'.repeat(50));
  await j.close();

  const again = await Journal.open<Rec & { n: number }>(dir, { segmentMax: 1024 });
  t.after(() => again.close());
  const last = await again.appendLocated('2026-03-01', { id: 'after', at: 'y', n: 60 });
  assert.equal(last.segment, Math.max(...ats.map((a) => a.segment ?? 0)), 'goes on in the last segment');
  assert.equal((await again.read('2026-03-01')).length, 61);
  await again.drop('2026-03-01');
  assert.deepEqual(await readdir(dir), []);
});

test('a partition file already past the bound (a store written before segments) is read streamed and the next append begins a new segment', async (t) => {
  const dir = await tmpDir(t);
  // One record, an attachment line of 3 KB, one record: 3 KB past a bound of 1 KB.
  await writeFile(join(dir, '2026-03-01.jsonl'), `{"id":"a","at":"x"}\n~${'A'.repeat(3000)}\n{"id":"b","at":"x"}\n`);
  const j = await Journal.open<Rec>(dir, { segmentMax: 1024 });
  t.after(() => j.close());
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a', 'b'],
  );
  const at = await j.appendLocated('2026-03-01', { id: 'c', at: 'y' });
  assert.equal(at.segment, 1);
  assert.deepEqual(
    (await j.read('2026-03-01')).map((r) => r.id),
    ['a', 'b', 'c'],
  );
});
