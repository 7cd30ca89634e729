// Two ways to take the file store's lock on a descriptor this process keeps open (lock.ts); both
// take the same kernel lock, flock(2) on the open file description, so processes using either
// exclude each other (svc built with and without the native module, old and new builds in a
// rolling update, an operator's `flock DIR/svc.lock`).
//
// - native/ (built at install by scripts/build-native.mjs) calls flock(2) itself.
// - Without it (no C compiler at install, or --ignore-scripts), flock(1) of util-linux is run on
//   the descriptor, which the child inherits, and exits at once: a process start (several
//   milliseconds of every command's start-up) for the same lock.
import { createRequire } from 'node:module';
import { SvcError } from '../../errors.js';

/** Takes an exclusive flock on `fd` without waiting: true taken, false held by another. */
export type TakeFlock = (fd: number) => Promise<boolean>;

export interface FlockMethod {
  name: 'flock(2)' | 'flock(1)';
  take: TakeFlock;
  /** Why the native module is not used, when it is not. */
  why?: string;
}

/** The addon from src/store/file (tsx) or dist/src/store/file (built): both reach the package's native/. */
const ADDON = ['../../../native/build/Release/svc_flock.node', '../../../../native/build/Release/svc_flock.node'];

let chosen: FlockMethod | undefined;

/** flock(2) when native/ was built and loads, otherwise flock(1); decided once per process. */
export function flockMethod(): FlockMethod {
  if (chosen) return chosen;
  const require = createRequire(import.meta.url);
  let why = 'native/ was not built at install';
  for (const rel of ADDON) {
    try {
      const addon = require(rel) as { tryLock(fd: number): boolean };
      return (chosen = { name: 'flock(2)', take: async (fd) => addon.tryLock(fd) });
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code !== 'MODULE_NOT_FOUND') why = `native/ does not load: ${err.message.split('\n')[0]}`;
    }
  }
  return (chosen = { name: 'flock(1)', take: flockCommand, why });
}

/** flock(1)'s exit status when the lock is held by another (--conflict-exit-code). */
const HELD = 75;

/** flock(1) on our descriptor, passed to it as its fd 3: the lock stays with the descriptor when it exits. */
export async function flockCommand(fd: number): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    const child = spawn('flock', ['--nonblock', '--conflict-exit-code', String(HELD), '3'], { stdio: ['ignore', 'ignore', 'pipe', fd] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'ENOENT'
          ? new SvcError(
              'store_unavailable',
              'the file store needs flock(1) (util-linux) to lock its directory, and it is not on PATH (or build native/: npm rebuild)',
              { cause: e },
            )
          : e,
      ),
    );
    child.on('close', (code) =>
      code === 0 || code === HELD
        ? resolve(code === 0)
        : reject(new SvcError('store_unavailable', `cannot lock the store: flock exited ${code}${err ? `: ${err.trim()}` : ''}`)),
    );
  });
}
