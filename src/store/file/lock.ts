// One process owns a file store at a time (DESIGN.md "Shape"). The lock file holds the owner's pid,
// role, boot id and process start time; a lock whose process is gone is stale and taken over, a
// live one is not. A pid alone is not enough: in a container the daemon is PID 1 after every
// restart, so its own stale lock would name a live process (itself), and a pid can be reused.
import { open, readFile, unlink, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SvcError } from '../../errors.js';

export type LockRole = 'serve' | 'admin';

export interface LockInfo {
  pid: number;
  role: LockRole;
  token: string;
  started_at: string;
  /** The kernel's boot id when the lock was taken (Linux), so a reboot makes every lock stale. */
  boot_id?: string | null;
  /** The owner's start time in clock ticks since boot (Linux /proc/PID/stat field 22). */
  start_ticks?: string | null;
}

/** Tokens of the locks this process holds (or is taking) now. */
const heldHere = new Set<string>();

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** A process's start time, which tells a reused pid from the process that took the lock. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export class LockHeldError extends SvcError {
  constructor(readonly holder: LockInfo, dir: string) {
    super(
      'store_locked',
      holder.role === 'serve'
        ? `store ${dir} is in use by svc serve (pid ${holder.pid})`
        : `store ${dir} is locked by another svc command (pid ${holder.pid})`,
    );
  }
}

export const LOCK_FILE = 'svc.lock';
// A lock file with no readable content is being written right now, unless it is older than this.
const UNREADABLE_GRACE_MS = 10_000;

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readLock(path: string): Promise<LockInfo | 'missing' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
  try {
    const info = JSON.parse(text) as LockInfo;
    if (typeof info.pid === 'number' && (info.role === 'serve' || info.role === 'admin')) return info;
  } catch {
    /* fall through */
  }
  return 'unreadable';
}

/** True when the process that took this lock is certainly gone. */
export function ownerGone(info: LockInfo): boolean {
  // Our own pid: a lock of this process is live only while this process holds it (a restarted
  // PID 1 finds its predecessor's lock naming itself).
  if (info.pid === process.pid) return !heldHere.has(info.token);
  if (!pidAlive(info.pid)) return true;
  const boot = bootId();
  if (info.boot_id && boot && info.boot_id !== boot) return true;
  // The pid lives, but is it the same process? Older locks carry no start time: trust the pid.
  const start = processStart(info.pid);
  return !!info.start_ticks && !!start && info.start_ticks !== start;
}

async function isStale(path: string, info: LockInfo | 'unreadable'): Promise<boolean> {
  if (info !== 'unreadable') return ownerGone(info);
  try {
    return Date.now() - (await stat(path)).mtimeMs > UNREADABLE_GRACE_MS;
  } catch {
    return false;
  }
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  let fh;
  try {
    fh = await open(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return true;
}

export class StoreLock {
  private constructor(
    readonly path: string,
    readonly info: LockInfo,
  ) {}

  /**
   * Takes the lock or throws LockHeldError naming the live holder. A stale lock is taken over under
   * a second exclusive file, so two processes that both find it stale do not both take it.
   */
  static async acquire(dir: string, role: LockRole): Promise<StoreLock> {
    const path = join(dir, LOCK_FILE);
    const info: LockInfo = {
      pid: process.pid,
      role,
      token: randomBytes(8).toString('hex'),
      started_at: new Date().toISOString(),
      boot_id: bootId(),
      start_ticks: processStart(process.pid),
    };
    // Known as ours before the file exists, so a concurrent acquire here never takes it for stale.
    heldHere.add(info.token);
    try {
      return await StoreLock.#acquire(dir, path, info);
    } catch (e) {
      heldHere.delete(info.token);
      throw e;
    }
  }

  static async #acquire(dir: string, path: string, info: LockInfo): Promise<StoreLock> {
    const content = JSON.stringify(info);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        if (await createExclusive(path, content)) return new StoreLock(path, info);
      } catch (e) {
        throw unwritable(dir, e);
      }
      const held = await readLock(path);
      if (held === 'missing') continue;
      if (!(await isStale(path, held))) {
        if (held === 'unreadable') {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        throw new LockHeldError(held, dir);
      }
      const takeover = `${path}.takeover`;
      if (!(await createExclusive(takeover, content))) {
        const other = await readLock(takeover);
        if (other !== 'missing' && (await isStale(takeover, other))) await unlink(takeover).catch(() => {});
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      try {
        const again = await readLock(path);
        // Only remove what we judged stale: the same holder, still dead.
        if (again !== 'missing' && JSON.stringify(again) === JSON.stringify(held) && (await isStale(path, again))) {
          await unlink(path);
        }
      } finally {
        await unlink(takeover).catch(() => {});
      }
    }
    const held = await readLock(path);
    if (held !== 'missing' && held !== 'unreadable') throw new LockHeldError(held, dir);
    throw new SvcError('store_locked', `store ${dir} is locked (${path})`);
  }

  /** Removes the lock file if it is still ours. */
  async release(): Promise<void> {
    const held = await readLock(this.path).catch(() => 'missing' as const);
    if (typeof held === 'object' && held.token === this.info.token) await unlink(this.path).catch(() => {});
    heldHere.delete(this.info.token);
  }
}

export function unwritable(dir: string, e: unknown): SvcError {
  const code = (e as NodeJS.ErrnoException).code ?? 'error';
  return new SvcError('store_unavailable', `store directory ${dir} is not writable (${code})`, { cause: e });
}
