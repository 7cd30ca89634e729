import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFile, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpDir } from '../../helpers/tmp.js';
import { FileStore } from '../../../src/store/file/file-store.js';
import { storeConformance } from './conformance/index.js';
import { list, sub } from './conformance/fixtures.js';
import { listsConformance } from './conformance/lists.js';
import { campaignsConformance } from './conformance/campaigns.js';
import { deletionConformance } from './conformance/deletion.js';
import { reopenConformance } from './conformance/reopen.js';

storeConformance<string>({
  name: 'file',
  backing: (t) => tmpDir(t),
  open: (dir) => FileStore.open(dir, 'serve'),
});

// An admin command's store reads the subscribers journal on first use (lists.ts): the suites that
// touch lists and subscribers again, on a store opened that way.
for (const suite of [listsConformance, campaignsConformance, deletionConformance, reopenConformance])
  suite<string>({
    name: 'file (admin command)',
    backing: (t) => tmpDir(t),
    open: (dir) => FileStore.open(dir, 'admin'),
  });

test('file store: an admin command reads the subscribers journal only when it uses lists; the daemon at its start', async (t) => {
  const dir = await tmpDir(t);
  const AT = '2026-01-01T00:00:00.000Z';
  let store = await FileStore.open(dir, 'admin');
  const w = await store.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'scale', created_at: AT });
  const l = await store.lists.create(list(w.id, 'news'));
  const jane = sub(l, 'jane@rcpt.test');
  await store.subscribers.upsert(jane, { name: '', updated_at: AT }, null);
  await store.close();
  // A line no reader can use: it is set aside (quarantine/) when, and only when, the journal is read.
  await appendFile(join(dir, 'subscribers', `${l.id}.jsonl`), '{"t":"sub","torn\n');
  const setAside = async () =>
    (await readdir(dir)).includes('quarantine') && (await readdir(join(dir, 'quarantine'))).includes('subscribers.jsonl');

  // Not read by a command that does not use lists.
  store = await FileStore.open(dir, 'admin');
  assert.deepEqual(await store.suppressions.list(w.id), []);
  assert.equal((await store.workspaces.list()).length, 1);
  await store.close();
  assert.equal(await setAside(), false, 'the subscribers journal was not read');

  // Read, once, by the first list operation, however many ask at once.
  store = await FileStore.open(dir, 'admin');
  const [lists, page] = await Promise.all([
    store.lists.listByWorkspace(w.id),
    store.subscribers.list(w.id, l.id, { limit: 10, offset: 0 }),
  ]);
  assert.equal(lists[0]!.subscriber_count, 1);
  assert.deepEqual(
    page.data.map((s) => s.email),
    ['jane@rcpt.test'],
  );
  assert.equal(store.problems.length, 1, 'its unreadable line, found once');
  await store.close();
  assert.equal(await setAside(), true, 'the unreadable line went aside when it was read');
  assert.equal((await readFile(join(dir, 'quarantine', 'subscribers.jsonl'), 'utf8')).trim().split('\n').length, 1);

  // The daemon reads it as it opens, and says so at its start.
  store = await FileStore.open(dir, 'serve');
  assert.match(store.startupWarning() ?? '', /^1 unreadable journal line\(s\) skipped .*subscribers/);
  await store.close();
});
