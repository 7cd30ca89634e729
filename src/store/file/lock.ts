// One process owns a file store at a time (DESIGN.md "Shape"). Ownership is an flock(2) on the
// store's svc.lock, held for the owner's life: the kernel releases it when the owner exits however
// it exits (SIGKILL included), and it holds between processes of any PID namespace that see the
// same file (two containers on one volume, a rolling update, a host command beside a containerised
// daemon). The file's content (pid, role, start time, boot id) only says who holds it, for
// messages and for an admin command to know a daemon's socket is there to talk to; nothing is
// decided by a pid any more, so a PID 1 daemon never takes another's PID 1 lock for its own stale
// one, and svc.lock is never removed, by anyone.
//
// Node has no flock, so the lock is held by flock(1) (util-linux, on every Linux) in a child
// process: `flock --nonblock svc.lock sh -c 'echo locked; exec cat'`. The child says `locked` once
// it holds the lock and then waits on its standard input, a pipe from this process: when this
// process releases the lock or dies, the pipe closes, the child exits and the kernel drops the lock.
import { userInfo } from 'node:os';
import { open, readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
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
/** flock(1)'s exit status when the lock is held by another (--conflict-exit-code). */
const HELD = 75;
/** How long a holder that has the flock may take to write who it is, before we say we do not know. */
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

/** Holds the flock in a child (see the top of this file); null when another process holds it. */
function flock(path: string): Promise<ChildProcess | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('flock', ['--nonblock', '--conflict-exit-code', String(HELD), path, 'sh', '-c', 'echo locked; exec cat'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const done = (fn: () => void) => {
      child.stdout!.removeAllListeners('data');
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      fn();
    };
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked\n')) done(() => resolve(child));
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e: NodeJS.ErrnoException) =>
      done(() =>
        reject(
          e.code === 'ENOENT'
            ? new SvcError('store_unavailable', 'the file store needs flock(1) (util-linux) to lock its directory, and it is not on PATH', {
                cause: e,
              })
            : e,
        ),
      ),
    );
    child.on('exit', (code) =>
      done(() =>
        code === HELD
          ? resolve(null)
          : reject(new SvcError('store_unavailable', `cannot lock ${path}: flock exited ${code}${err ? `: ${err.trim()}` : ''}`)),
      ),
    );
  });
}

export class StoreLock {
  #child: ChildProcess | null;

  private constructor(
    readonly path: string,
    readonly info: LockInfo,
    child: ChildProcess,
  ) {
    this.#child = child;
  }

  /** Takes the lock, or throws LockHeldError naming the holder (whatever PID namespace it is in). */
  static async acquire(dir: string, role: LockRole, command: string | null = null): Promise<StoreLock> {
    const path = join(dir, LOCK_FILE);
    // The file stays for good; only the flock on it comes and goes.
    try {
      await (await open(path, 'a', 0o600)).close();
    } catch (e) {
      throw unwritable(dir, e);
    }
    const child = await flock(path);
    if (!child) {
      // Held: say by whom (the holder writes that right after it takes the flock).
      const until = Date.now() + UNWRITTEN_WAIT_MS;
      for (;;) {
        const holder = await readLock(path);
        if (holder) throw new LockHeldError(holder, dir);
        if (Date.now() > until) throw new SvcError('store_locked', `store ${dir} is locked by another process (${path})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    // The child lives as long as the lock is held, without holding this process's event loop; of
    // its pipes only its input stays open (its end is the release), so it costs one descriptor.
    child.unref();
    (child.stdin as Socket).unref();
    child.stdout!.destroy();
    child.stderr!.destroy();
    const info: LockInfo = {
      pid: process.pid,
      role,
      token: randomBytes(8).toString('hex'),
      started_at: new Date().toISOString(),
      boot_id: bootId(),
      start_ticks: processStart(process.pid),
      command,
    };
    const lock = new StoreLock(path, info, child);
    try {
      const fh = await open(path, 'r+');
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

  /** Lets go of the flock (and waits until the kernel has dropped it). The file and what it says stay. */
  async release(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.stdin!.end();
    // cat ends at the end of its input; a child that does not is ended.
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The lock for a command that rewrites the store (repair, rekey): refused, naming it, while another process owns the store. */
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
