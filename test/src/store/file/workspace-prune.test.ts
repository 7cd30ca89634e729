// The file store's deletion of a workspace on disk: after its purge, the next open writes the
// journals again without its lines, so no file of the store holds anything of it; the other
// workspace's lines (some in the same lines as the deleted one's) are whole and read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpDir } from '../../../helpers/tmp.js';
import { FileStore } from '../../../../src/store/file/file-store.js';
import { onlyKeptRemains, purgeAll, twoWorkspaces } from '../conformance/deletion.js';

async function filesHolding(dir: string, texts: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const body = await readFile(path, 'latin1');
    for (const t of texts) if (body.includes(t)) out.push(`${path.slice(dir.length + 1)}: ${t}`);
  }
  return out;
}

test('file store: a deleted workspace leaves every file at the next open; the other workspace is whole', async (t) => {
  const dir = await tmpDir(t);
  const store = await FileStore.open(dir, 'serve', { inboxSnapshotMin: 1 });
  const { gone, kept } = await twoWorkspaces(store);
  const traces = ['ACMEDATA', gone.ws.id, ...gone.messageIds, gone.item.id, gone.listId, gone.endpointId];
  assert.ok((await filesHolding(dir, traces)).length > 0, 'the test finds what it looks for');
  assert.equal(await store.workspaces.markDeleted(gone.ws.id, '2026-03-01T00:00:00.000Z', 'trial'), true);
  assert.equal(await purgeAll(store, gone.ws.id, 500), 1);
  await onlyKeptRemains(store, gone, kept);
  // Queued mail of the deleted workspace is never handed off, before the reopen too.
  const more = await FileStore.open(dir, 'serve').catch((e: Error) => e);
  assert.ok(more instanceof Error, 'the store is still held');
  await store.close();

  const again = await FileStore.open(dir, 'serve', { inboxSnapshotMin: 1 });
  assert.ok(again.prunedLines > 0);
  assert.deepEqual(await filesHolding(dir, traces), []);
  assert.ok((await filesHolding(dir, ['BETADATA', kept.ws.id])).length > 0);
  await onlyKeptRemains(again, gone, kept);
  await again.close();

  // And once is enough: the next open finds nothing to do.
  const third = await FileStore.open(dir, 'serve');
  t.after(() => third.close());
  assert.equal(third.prunedLines, 0);
  await onlyKeptRemains(third, gone, kept);
});
