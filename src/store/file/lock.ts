// One process owns an embedded store at a time (one writer daemon). Ownership is SQLite's own
// exclusive lock on the store's svc.owner, a database of nothing that the owner opens in EXCLUSIVE
// locking mode and keeps open for its life: the kernel releases the lock when the owner exits
// however it exits (SIGKILL included), and it holds between processes of any PID namespace that see
// the same file (two containers on one volume, a rolling update, a host command beside a
// containerised daemon), and between two stores opened in one process. svc.lock only says who holds
// it (pid, role, start time, boot id), for messages and for an admin command to know a daemon's
// socket is there to talk to; nothing is decided by a pid, so a PID 1 daemon never takes another's
// PID 1 lock for its own stale one, and neither file is ever removed, by anyone.
import { userInfo } from 'node:os';
import { open, readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SvcError } from '../../errors.js';

export type LockRole = 'serve' | 'admin';

export interface LockInfo {
  pid: number;
  role: LockRole;
  token: string;
  started_at: string;
  /** The kernel's boot id when the lock was taken (Linux). */
  boot_id?: string | null;
  /** The owner's start time in clock ticks since boot (Linux /proc/PID/stat field 22). */
  start_ticks?: string | null;
  /** What holds it (`svc domains verify`), so that a command waiting for it can say. */
  command?: string | null;
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** A process's start time (what the lock file records of its holder). */
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
  constructor(
    readonly holder: LockInfo,
    dir: string,
  ) {
    super(
      'store_locked',
      holder.role === 'serve'
        ? `store ${dir} is in use by svc serve (pid ${holder.pid}${holder.pid === 1 ? ', in a container' : ''}, since ${holder.started_at})`
        : `store ${dir} is locked by ${holder.command ?? 'another svc command'} (pid ${holder.pid}, since ${holder.started_at})`,
    );
  }
}

export const LOCK_FILE = 'svc.lock';
/** The database whose exclusive lock is the store's ownership. */
export const OWNER_FILE = 'svc.owner';

/** Takes the owner lock without waiting: the connection that holds it, or null when another does. */
function takeOwner(path: string): Database.Database | null {
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 0');
    // It holds no data: no journal beside it.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    // In EXCLUSIVE locking mode the lock a write transaction takes is kept until the connection closes.
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    return db;
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY')) return null;
    throw e;
  }
}
/** How long a holder that has the lock may take to write who it is, before we say we do not know. */
const UNWRITTEN_WAIT_MS = 2_000;

async function readLock(path: string): Promise<LockInfo | null> {
  try {
    const info = JSON.parse(await readFile(path, 'utf8')) as LockInfo;
    if (typeof info.pid === 'number' && (info.role === 'serve' || info.role === 'admin')) return info;
  } catch {
    /* missing, being written, or not ours */
  }
  return null;
}

export class StoreLock {
  #owner: Database.Database | null;

  private constructor(
    readonly path: string,
    readonly info: LockInfo,
    owner: Database.Database,
  ) {
    this.#owner = owner;
  }

  /** Takes the lock, or throws LockHeldError naming the holder (whatever PID namespace it is in). */
  static async acquire(dir: string, role: LockRole, command: string | null = null): Promise<StoreLock> {
    const path = join(dir, LOCK_FILE);
    // The connection is the lock's life: it is closed on release, or by the kernel when this process ends.
    let owner: Database.Database | null;
    try {
      owner = takeOwner(join(dir, OWNER_FILE));
    } catch (e) {
      const err = e as { code?: string; message?: string };
      if (err.code === 'SQLITE_CANTOPEN' || err.code === 'SQLITE_READONLY') throw unwritable(dir, e);
      throw new SvcError('store_unavailable', `cannot lock ${join(dir, OWNER_FILE)}: ${err.code ?? 'error'}: ${err.message}`, { cause: e });
    }
    if (!owner) {
      // Held: say by whom (the holder writes that right after it takes the lock).
      const until = Date.now() + UNWRITTEN_WAIT_MS;
      for (;;) {
        const holder = await readLock(path);
        if (holder) throw new LockHeldError(holder, dir);
        if (Date.now() > until) throw new SvcError('store_locked', `store ${dir} is locked by another process (${path})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const info: LockInfo = {
      pid: process.pid,
      role,
      token: randomBytes(8).toString('hex'),
      started_at: new Date().toISOString(),
      boot_id: bootId(),
      start_ticks: processStart(process.pid),
      command,
    };
    const lock = new StoreLock(path, info, owner);
    try {
      const fh = await open(path, 'a+', 0o600);
      try {
        await fh.truncate(0);
        await fh.write(JSON.stringify(info), 0);
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (e) {
      await lock.release();
      throw unwritable(dir, e);
    }
    return lock;
  }

  /** Lets go of the lock: closing its connection drops it at once. The files and what they say stay. */
  async release(): Promise<void> {
    const owner = this.#owner;
    this.#owner = null;
    owner?.close();
  }
}

/** The lock for a command that rewrites the store (rekey): refused, naming it, while another process owns the store. */
export async function lockForMaintenance(dir: string, command: string): Promise<StoreLock> {
  try {
    return await StoreLock.acquire(dir, 'admin');
  } catch (e) {
    if (e instanceof LockHeldError) throw new SvcError('store_locked', `${e.message}: stop it before ${command}`);
    throw e;
  }
}

/** Why a path cannot be written, in words, for the codes an operator meets. */
const UNWRITABLE: Record<string, string> = {
  EEXIST: 'is a file, not a directory',
  ENOTDIR: 'has a file where a directory should be',
  EACCES: 'is not writable by this user',
  EPERM: 'is not writable by this user',
  EROFS: 'is on a read-only file system',
  ENOSPC: 'is on a full disk',
  EDQUOT: 'is over its disk quota',
};

/** The store's directory cannot be made or written: which path, and why (not just `EEXIST`). */
export function unwritable(dir: string, e: unknown): SvcError {
  const err = e as NodeJS.ErrnoException;
  const code = err.code ?? 'error';
  const why = UNWRITABLE[code];
  const user = code === 'EACCES' || code === 'EPERM' ? ` (${userInfoName()})` : '';
  return new SvcError(
    'store_unavailable',
    why
      ? `store directory ${dir} is not writable: ${err.path ?? dir} ${why}${user} (${code})`
      : `store directory ${dir} is not writable (${code}${err.message ? `: ${err.message}` : ''})`,
    { cause: e },
  );
}

function userInfoName(): string {
  try {
    return `svc runs as ${userInfo().username}`;
  } catch {
    return `svc runs as uid ${process.getuid?.() ?? '?'}`;
  }
}
