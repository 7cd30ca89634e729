import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { StoreLock, LockHeldError, LOCK_FILE, processStart } from '../../../../src/store/file/lock.js';
import { FileStore } from '../../../../src/store/file/file-store.js';
import { tmpDir } from '../../../helpers/tmp.js';

/** A pid that is certainly not running: a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

test('a second owner is refused while the first lives, and gets it after release', async (t) => {
  const dir = await tmpDir(t);
  const first = await FileStore.open(dir, 'serve');
  await assert.rejects(FileStore.open(dir, 'serve'), (e) => e instanceof LockHeldError && e.holder.pid === process.pid && /in use by svc serve/.test(e.message));
  await assert.rejects(FileStore.open(dir, 'admin'), LockHeldError);
  await first.close();
  const second = await FileStore.open(dir, 'admin');
  await second.close();
});

test('a stale lock from a dead process is taken over', async (t) => {
  const dir = await tmpDir(t);
  const pid = deadPid();
  await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid, role: 'serve', token: 'x', started_at: '2026-01-01T00:00:00Z' }));
  const lock = await StoreLock.acquire(dir, 'admin');
  const now = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'));
  assert.equal(now.pid, process.pid);
  assert.equal(now.role, 'admin');
  await lock.release();
});

test('an unreadable lock is respected while fresh and taken over once old', async (t) => {
  const dir = await tmpDir(t);
  const path = join(dir, LOCK_FILE);
  await writeFile(path, '');
  await assert.rejects(StoreLock.acquire(dir, 'admin'), /locked/);
  const old = new Date(Date.now() - 60_000);
  await utimes(path, old, old);
  const lock = await StoreLock.acquire(dir, 'admin');
  await lock.release();
});

test('two processes racing for a stale lock: exactly one wins', async (t) => {
  const dir = await tmpDir(t);
  await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), role: 'admin', token: 'x', started_at: '2026-01-01T00:00:00Z' }));
  const results = await Promise.allSettled([StoreLock.acquire(dir, 'admin'), StoreLock.acquire(dir, 'admin')]);
  // Both run in this process, so the loser sees the winner's (live) pid and is refused.
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  for (const r of results) if (r.status === 'fulfilled') await r.value.release();
});

test('release leaves a lock that is not ours alone', async (t) => {
  const dir = await tmpDir(t);
  const lock = await StoreLock.acquire(dir, 'admin');
  const other = JSON.stringify({ pid: process.pid, role: 'serve', token: 'someone-else', started_at: '2026-01-01T00:00:00Z' });
  await writeFile(join(dir, LOCK_FILE), other);
  await lock.release();
  assert.equal(await readFile(join(dir, LOCK_FILE), 'utf8'), other);
});

test('a live process under the recorded pid that started at another time is not the owner: its lock is stale', async (t) => {
  const dir = await tmpDir(t);
  const live = process.ppid;
  const start = processStart(live);
  if (!start) return t.skip('no /proc/PID/stat here');
  await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: live, role: 'serve', token: 'x', started_at: '2026-01-01T00:00:00Z', start_ticks: String(Number(start) + 1) }));
  const lock = await StoreLock.acquire(dir, 'admin');
  await lock.release();
  // The same live process with its real start time holds the lock.
  await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: live, role: 'serve', token: 'x', started_at: '2026-01-01T00:00:00Z', start_ticks: start }));
  await assert.rejects(StoreLock.acquire(dir, 'admin'), (e) => e instanceof LockHeldError && e.holder.pid === live);
});

test('a daemon that ran as PID 1 (a container) takes over its own stale lock after a crash', async (t) => {
  const probe = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']);
  if (probe.error || probe.status !== 0) return t.skip(`unshare --pid is not available here (${probe.error?.message ?? probe.stderr.toString().trim()})`);
  const dir = await tmpDir(t);
  const lockModule = new URL('../../../../src/store/file/lock.ts', import.meta.url).pathname;
  // PID 1 of a fresh PID namespace takes the lock and dies without releasing it (a crash).
  const asPid1 = (code: string) =>
    spawnSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, '--import', 'tsx', '--input-type=module', '-e', `import { StoreLock } from ${JSON.stringify(lockModule)}; ${code}`], {
      cwd: new URL('../../../..', import.meta.url).pathname,
      encoding: 'utf8',
    });
  const crash = asPid1(`await StoreLock.acquire(${JSON.stringify(dir)}, 'serve'); process.stdout.write(String(process.pid)); process.exit(0);`);
  assert.equal(crash.status, 0, crash.stderr);
  assert.equal(crash.stdout, '1');
  assert.equal(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid, 1, 'the crashed PID 1 left its lock');
  const restart = asPid1(`const l = await StoreLock.acquire(${JSON.stringify(dir)}, 'serve'); process.stdout.write('took ' + process.pid); await l.release();`);
  assert.equal(restart.status, 0, restart.stderr);
  assert.equal(restart.stdout, 'took 1');
});
