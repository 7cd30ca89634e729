// A lowdb adapter whose writes are atomic, durable and grouped: a crash mid-write leaves the
// previous or the new file (write temp, fsync, rename, fsync directory), a write resolves only once
// it is on disk, and writes requested while one is running share the next file write.
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { SvcError } from '../../errors.js';
import { GroupCommit } from './group-commit.js';

export async function syncDir(dir: string): Promise<void> {
  const dh = await open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}

export class DurableJsonFile<T> implements Adapter<T> {
  #latest: T | undefined;
  readonly #commit = new GroupCommit(() => this.#replace(JSON.stringify(this.#latest)));

  constructor(readonly path: string) {}

  /** File writes made so far (grouping shows as fewer writes than calls). */
  get writes(): number {
    return this.#commit.flushes;
  }

  /** null when the file does not exist; a file that exists but does not parse is never overwritten. */
  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new SvcError('store_unavailable', `cannot read ${this.path}: ${(e as Error).message}`, { cause: e });
    }
    try {
      return JSON.parse(text) as T;
    } catch (e) {
      throw new SvcError('store_corrupt', `data file ${this.path} cannot be parsed (${(e as Error).message}); it was left untouched`, {
        cause: e,
      });
    }
  }

  write(data: T): Promise<void> {
    this.#latest = data;
    return this.#commit.request();
  }

  settled(): Promise<void> {
    return this.#commit.settled();
  }

  async #replace(text: string): Promise<void> {
    const dir = dirname(this.path);
    const tmp = join(dir, `.${basename(this.path)}.${process.pid}.tmp`);
    const fh = await open(tmp, 'w', 0o600);
    try {
      try {
        // writeFile loops over short writes; a full disk fails it with ENOSPC.
        await fh.writeFile(text);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, this.path);
    } catch (e) {
      // The old file is untouched; a half-written copy must not take the space a retry needs.
      await unlink(tmp).catch(() => {});
      throw e;
    }
    await syncDir(dir);
  }
}
