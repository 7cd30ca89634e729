// Store conformance: backup. The embedded store writes a snapshot of itself (a tar file any tar
// reads: svc.json, then svc.db, the lock left out) that reopens with what was stored; Postgres
// names pg_dump, writing nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { list } from 'tar';
import { type Backend, fresh, ws, batch, rejectsWith } from './fixtures.js';

export function backupConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: backup: a snapshot of the whole store at one instant (file store), or pg_dump named (Postgres)`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const sent = batch(a.id, ['jane@rcpt.test'], '2026-01-01T10:00:00.000Z');
    await store.messages.accept(sent);
    const dir = await mkdtemp(join(tmpdir(), 'svc-snap-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const out = join(dir, 'snap.tar');
    if (backend.name === 'postgres') {
      await rejectsWith(store.backup.snapshot(out), 'usage');
      assert.equal(existsSync(out), false);
      return;
    }
    const snap = await store.backup.snapshot(out);
    assert.equal(snap.file, out);
    assert.ok(snap.bytes > 0 && snap.files >= 2);
    const paths: string[] = [];
    await list({ file: out, onReadEntry: (e) => void paths.push(e.path) });
    assert.deepEqual(paths, ['svc.json', 'svc.db'], 'the document first, then the database');
    assert.ok(!paths.includes('svc.lock'));
    await rejectsWith(store.backup.snapshot(out), 'conflict');
    // What was stored reads back from the snapshot, restored into a new directory.
    const { restoreSnapshot } = await import('../../../../src/store/sqlite/snapshot.js');
    const { SqliteStore } = await import('../../../../src/store/sqlite/sqlite-store.js');
    await restoreSnapshot(out, join(dir, 'copy'));
    const copy = await SqliteStore.open(join(dir, 'copy'), 'admin');
    try {
      assert.equal((await copy.messages.get(a.id, sent.messages[0]!.id))?.to, 'jane@rcpt.test');
      assert.equal((await copy.workspaces.getByName('acme'))?.id, a.id);
    } finally {
      await copy.close();
    }
  });
}
