import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairQueue } from '../../../../src/store/file/fair-order.js';
import { ContentCache } from '../../../../src/store/file/content-cache.js';
import type { SendContent } from '../../../../src/model/message.js';

const job = (id: string, ws: string, priority = 0) => ({ id, workspace_id: ws, priority });

test('fair queue: transactional first, workspaces in turn, bulk capped, jobs `ok` refuses skipped', () => {
  const q = new FairQueue<ReturnType<typeof job>>();
  for (let i = 0; i < 5; i++) q.set(job(`big${i}`, 'big', 1));
  q.set(job('small0', 'small', 1));
  q.set(job('reset', 'small', 0));
  q.set(job('leased', 'other', 0));
  const ids = (js: Array<{ id: string }>) => js.map((j) => j.id);
  assert.deepEqual(ids(q.pick(10, 10, (j) => j.id !== 'leased')), ['reset', 'big0', 'small0', 'big1', 'big2', 'big3', 'big4']);
  assert.deepEqual(ids(q.pick(10, 2, () => true)), ['reset', 'leased', 'big0', 'small0'], 'bulk capped at 2 across its workspaces');
  assert.deepEqual(ids(q.pick(2, 10, () => true)), ['reset', 'leased']);
  assert.deepEqual(ids(q.pick(10, 0, () => true)), ['reset', 'leased'], 'no bulk slot: bulk jobs are not read');
  q.delete('big0');
  q.delete('reset');
  assert.equal(q.size, 6);
  assert.deepEqual(ids(q.pick(3, 3, () => true)), ['leased', 'big1', 'small0']);
  // Set again (a retry): one entry, its place kept as the newest.
  q.set(job('small0', 'small', 1));
  assert.equal(q.size, 6);
});

test('content cache: concurrent readers share one read, each gets its own copy; contents with attachments are read each time', async () => {
  const cache = new ContentCache();
  let reads = 0;
  const content = { id: 'c1', html: '<p>hi</p>', text: 'hi', to: [], cc: [], notes: [] } as unknown as SendContent;
  const read = async () => {
    reads++;
    await new Promise((r) => setTimeout(r, 5));
    return structuredClone(content);
  };
  const copy = (c: SendContent) => ({ ...c, notes: [...c.notes] });
  const [a, b] = await Promise.all([cache.get('c1', read, copy), cache.get('c1', read, copy)]);
  assert.equal(reads, 1);
  assert.notEqual(a, b);
  a!.notes.push('changed');
  assert.deepEqual((await cache.get('c1', read, copy))!.notes, [], "a caller changing its copy changes nobody else's");
  assert.equal(reads, 1);
  cache.forget('c1');
  await cache.get('c1', read, copy);
  assert.equal(reads, 2, 'forgotten once its jobs are done');
  const withFile = { ...content, id: 'c2', attachments: [{ filename: 'a.txt' }] } as unknown as SendContent;
  let fileReads = 0;
  const readFile = async () => (fileReads++, structuredClone(withFile));
  await cache.get('c2', readFile, copy);
  await new Promise((r) => setImmediate(r));
  await cache.get('c2', readFile, copy);
  assert.equal(fileReads, 2);
});
