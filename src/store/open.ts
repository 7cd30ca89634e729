// Opens the store a command or the daemon asked for (--store). A file store owned by a running
// daemon is reached through the daemon's admin socket; one briefly held by another admin command
// is waited for. Postgres is shared: every process connects directly.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreLocation } from './location.js';
import { SvcError } from '../errors.js';
import type { Log } from '../log.js';
import type { Store } from './types.js';
import type { LockRole } from './file/lock.js';

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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function openStore(location: StoreLocation, opts: OpenOptions): Promise<Store> {
  if (location.kind === 'postgres') {
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
  const [{ FileStore, DATA_FILE }, { LockHeldError }, { RemoteStore }, { socketPath }] = await Promise.all([
    import('./file/file-store.js'),
    import('./file/lock.js'),
    import('./file/remote-store.js'),
    import('./file/admin-protocol.js'),
  ]);
  if (opts.create === false && !existsSync(join(location.dir, DATA_FILE))) {
    throw new SvcError(
      'not_found',
      `no svc store at ${location.dir} (svc init makes one; --store, SVC_STORE or the config file names another)`,
    );
  }
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    try {
      return await FileStore.open(location.dir, opts.role, {
        ...(location.encryptionKey ? { encryptionKey: location.encryptionKey } : {}),
      });
    } catch (e) {
      if (!(e instanceof LockHeldError)) throw e;
      if (e.holder.role === 'serve') {
        if (opts.role === 'serve') throw e;
        try {
          return await RemoteStore.connect(socketPath(location.dir));
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
      }
    }
    await sleep(delay);
  }
}
