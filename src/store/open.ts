// Opens the store a command or the daemon asked for (--store). A file store owned by a running
// daemon is reached through the daemon's admin socket; one briefly held by another admin command
// is waited for. Postgres is shared: every process connects directly.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILE, type PostgresLocation, type StoreLocation } from './location.js';
import { SvcError } from '../errors.js';
import type { Log } from '../log.js';
import type { Store } from './types.js';
// The file store's code is loaded once it is known to be needed: a command that reaches a running
// daemon through its socket loads none of it (not even its lock and data file).
import type { LockRole } from './file/lock.js';
import type { DocSlice } from './file/doc-store.js';
import { socketPath } from './file/admin-protocol.js';

type FileLocation = Extract<StoreLocation, { kind: 'file' }>;

export interface OpenOptions {
  role: LockRole;
  log: Log;
  /** How long to wait for another short-lived command holding a file store. */
  waitMs?: number;
  /** Postgres: apply pending migrations rather than refuse a schema that is behind. */
  migrate?: boolean;
  /**
   * Postgres: check now that the database answers with the right schema (admin commands fail
   * fast); the daemon starts without it and answers 503 until the database is back.
   */
  check?: boolean;
  /**
   * File store: make the directory and its data file when there is none (`svc init`, `svc serve`,
   * `svc workspaces create`). Without it a missing store is a one-line failure, so a command run
   * from the wrong directory never leaves an empty store behind.
   */
  create?: boolean;
  /**
   * File store: only through a running daemon's admin socket (store_unavailable when none
   * answers), never by taking the store's lock: a follower waiting for its daemon to restart.
   */
  viaDaemon?: boolean;
  /** What is opening it (`svc keys list`), written into a file store's lock for others to name. */
  command?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function openStore(location: StoreLocation, opts: OpenOptions): Promise<Store> {
  if (location.kind === 'postgres') return openPostgres(location, opts);
  const key = location.encryptionKey ? { encryptionKey: location.encryptionKey } : {};
  return openFile(location, opts, async (dir, role, o) => {
    // The lock is taken and the data file read (openDataFile) while the database's modules load.
    // The data file's module comes first: imported together with the store, it would wait for the
    // whole graph.
    const { openDataFile } = await import('./file/doc-store.js');
    const [data, loaded] = await Promise.allSettled([openDataFile(dir, role, { ...key, ...o }), import('./sqlite/sqlite-store.js')]);
    if (data.status === 'rejected') throw data.reason;
    if (loaded.status === 'rejected') {
      await data.value.lock.release();
      throw loaded.reason;
    }
    return loaded.value.SqliteStore.open(dir, role, { ...key, ...o, data: data.value });
  });
}

/**
 * A store of workspaces and keys alone (`svc keys list`): on a file store that no daemon owns, its
 * data file without the journals (file/doc-store.ts), so that the command neither loads nor reads
 * them; through a daemon, or on Postgres, the whole store as openStore opens it.
 */
export async function openDocStore(location: StoreLocation, opts: OpenOptions): Promise<DocSlice> {
  if (location.kind === 'postgres') return openPostgres(location, opts);
  return openFile(location, opts, async (dir, role, o) =>
    (await import('./file/doc-store.js')).DocStore.open(dir, role, {
      ...(location.encryptionKey ? { encryptionKey: location.encryptionKey } : {}),
      ...o,
    }),
  );
}

async function openPostgres(location: PostgresLocation, opts: OpenOptions): Promise<Store> {
  const { PgStore } = await import('./postgres/pg-store.js');
  const store = PgStore.create(location, { log: opts.log, migrate: opts.migrate ?? false, cacheKeys: opts.role === 'serve' });
  if (opts.check ?? true) {
    try {
      await store.ready();
    } catch (e) {
      await store.close();
      throw e;
    }
  }
  return store;
}

/** A file store opened by `open` (it takes the lock), or its daemon's admin socket when the daemon owns it. */
async function openFile<T>(
  location: FileLocation,
  opts: OpenOptions,
  open: (dir: string, role: LockRole, o: { command?: string }) => Promise<T>,
): Promise<T | Store> {
  const daemon = async () => {
    const { RemoteStore } = await import('./file/remote-store.js');
    return RemoteStore.connect(socketPath(location.dir));
  };
  if (opts.create === false && !existsSync(join(location.dir, DATA_FILE))) {
    throw new SvcError(
      'not_found',
      `no svc store at ${location.dir} (svc init makes one; --store, SVC_STORE or the config file names another)`,
    );
  }
  if (opts.viaDaemon) {
    try {
      return await daemon();
    } catch (e) {
      throw new SvcError('store_unavailable', `svc serve does not answer on ${location.dir} (${(e as Error).message})`);
    }
  }
  // A daemon that answers on the store's socket owns the store (only the lock's holder listens
  // there): talked to at once, without taking turns at the lock or loading the file store's code.
  // A socket left by a daemon that died refuses the connection, and the lock decides as below.
  if (opts.role !== 'serve' && existsSync(socketPath(location.dir))) {
    const remote = await daemon().catch(() => null);
    if (remote) return remote;
  }
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  let said = false;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    try {
      return await open(location.dir, opts.role, opts.command ? { command: opts.command } : {});
    } catch (e) {
      const { LockHeldError } = await import('./file/lock.js');
      if (!(e instanceof LockHeldError)) throw e;
      if (e.holder.role === 'serve') {
        if (opts.role === 'serve') throw e;
        try {
          return await daemon();
        } catch (connectError) {
          // The daemon took the lock but is not listening yet, or just stopped: try again shortly.
          if (Date.now() > deadline) {
            throw new SvcError(
              'store_unavailable',
              `svc serve (pid ${e.holder.pid}) owns ${location.dir} but its admin socket does not answer (${(connectError as Error).message})`,
            );
          }
        }
      } else if (Date.now() > deadline) {
        throw e;
      } else if (!said) {
        // Said at once, not after the wait: what holds the store, and for how long this waits.
        said = true;
        opts.log.warn(
          `waiting for ${e.holder.command ?? 'another svc command'} (pid ${e.holder.pid}) to let go of ${location.dir} (up to ${Math.round((deadline - Date.now()) / 1000)} s)`,
        );
      }
    }
    await sleep(delay);
  }
}
