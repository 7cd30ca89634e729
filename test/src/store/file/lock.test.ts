// The embedded store's lock: SQLite's exclusive lock on svc.owner, held for the owner's life
// (src/store/file/lock.ts). svc.lock only says who holds it; nothing is judged by a pid, so it
// holds across PID namespaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { StoreLock, LockHeldError, LOCK_FILE, OWNER_FILE } from '../../../../src/store/file/lock.js';
import { SqliteStore } from '../../../../src/store/sqlite/sqlite-store.js';
import { tmpDir } from '../../../helpers/tmp.js';
import { ROOT, fromRoot } from '../../../helpers/root.js';

test('a second owner is refused while the first lives, and gets it after release', async (t) => {
  const dir = await tmpDir(t);
  const first = await SqliteStore.open(dir, 'serve');
  await assert.rejects(
    SqliteStore.open(dir, 'serve'),
    (e) => e instanceof LockHeldError && e.holder.pid === process.pid && /in use by svc serve/.test(e.message),
  );
  await assert.rejects(SqliteStore.open(dir, 'admin'), LockHeldError);
  await first.close();
  const second = await SqliteStore.open(dir, 'admin');
  await second.close();
});

test('what the lock file says decides nothing: a file naming a live process (ours) is free when nobody holds the lock; the files are never removed', async (t) => {
  const dir = await tmpDir(t);
  const path = join(dir, LOCK_FILE);
  await writeFile(path, JSON.stringify({ pid: process.pid, role: 'serve', token: 'x', started_at: '2026-01-01T00:00:00Z' }));
  const lock = await StoreLock.acquire(dir, 'admin', null);
  const now = JSON.parse(await readFile(path, 'utf8'));
  assert.deepEqual([now.pid, now.role], [process.pid, 'admin']);
  await lock.release();
  assert.ok((await stat(path)).isFile(), 'svc.lock stays');
  assert.ok((await stat(join(dir, OWNER_FILE))).isFile(), 'svc.owner stays');
  // An empty or damaged file is no lock either.
  await writeFile(path, '');
  await (await StoreLock.acquire(dir, 'admin', null)).release();
});

test('two takers at once: exactly one wins, the other is told who holds it; a release lets the next in at once', async (t) => {
  const dir = await tmpDir(t);
  const results = await Promise.allSettled([StoreLock.acquire(dir, 'admin', 'svc one'), StoreLock.acquire(dir, 'serve', null)]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.ok(lost.reason instanceof LockHeldError, String(lost.reason));
  assert.equal(lost.reason.holder.pid, process.pid);
  for (const r of results) if (r.status === 'fulfilled') await r.value.release();
  // Closing the connection dropped the lock: no child to wait for, no retry.
  await (await StoreLock.acquire(dir, 'admin', null)).release();
});

test("SQLite's own locking is the lock: a connection holding svc.owner's write lock keeps svc out", async (t) => {
  const dir = await tmpDir(t);
  const other = new Database(join(dir, OWNER_FILE));
  t.after(() => other.close());
  other.pragma('locking_mode = EXCLUSIVE');
  other.exec('BEGIN EXCLUSIVE; COMMIT');
  await assert.rejects(StoreLock.acquire(dir, 'admin'), /locked by another process|in use/);
  other.close();
  await (await StoreLock.acquire(dir, 'admin')).release();
});

/** A process that takes the lock and holds it until killed; resolves once it holds it. */
async function holder(t: { after(fn: () => unknown): void }, dir: string, prefix: string[] = []): Promise<ChildProcess> {
  const lockModule = fromRoot('src/store/file/lock.ts');
  const child = spawn(
    prefix[0] ?? process.execPath,
    [
      ...prefix.slice(1),
      ...(prefix.length ? [process.execPath] : []),
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { StoreLock } from ${JSON.stringify(lockModule)}; await StoreLock.acquire(${JSON.stringify(dir)}, 'serve'); process.stdout.write('held ' + process.pid + '\\n'); setInterval(() => {}, 1000);`,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the holder did not take the lock in 20 s: ${err}`)), 20_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('held')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the holder exited ${code}: ${err}`));
    });
  });
  return child;
}

test('a holder killed with SIGKILL lets go at once (the kernel drops its lock)', async (t) => {
  const dir = await tmpDir(t);
  const child = await holder(t, dir);
  await assert.rejects(
    StoreLock.acquire(dir, 'admin'),
    (e) => e instanceof LockHeldError && e.holder.pid === child.pid && e.holder.role === 'serve',
  );
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
  // The kernel closed its descriptor as it died, before its parent (this test) heard of the death.
  const lock = await StoreLock.acquire(dir, 'admin');
  await lock.release();
});

test('PID namespaces: a PID 1 daemon holds the store against another PID 1 and against the host; after it dies the next takes it', async (t) => {
  const probe = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']);
  if (probe.error || probe.status !== 0)
    return t.skip(`unshare --pid is not available here (${probe.error?.message ?? probe.stderr.toString().trim()})`);
  const dir = await tmpDir(t);
  const first = await holder(t, dir, ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc']);
  assert.equal(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid, 1, 'PID 1 in its namespace');
  // Another container's PID 1 on the same volume: refused, naming the holder.
  const lockModule = fromRoot('src/store/file/lock.ts');
  const second = spawnSync(
    'unshare',
    [
      '--pid',
      '--fork',
      '--mount-proc',
      process.execPath,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { StoreLock } from ${JSON.stringify(lockModule)}; try { await StoreLock.acquire(${JSON.stringify(dir)}, 'serve'); process.stdout.write('took it'); } catch (e) { process.stdout.write(e.message); }`,
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  assert.match(second.stdout, /is in use by svc serve \(pid 1, in a container/);
  // The host: refused too, and the file is left as it is.
  const before = await readFile(join(dir, LOCK_FILE), 'utf8');
  await assert.rejects(StoreLock.acquire(dir, 'admin'), LockHeldError);
  assert.equal(await readFile(join(dir, LOCK_FILE), 'utf8'), before);
  const gone = new Promise((r) => first.once('exit', r));
  first.kill('SIGKILL');
  await gone;
  const next = await holder(t, dir, ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc']);
  assert.ok(next.pid);
});
