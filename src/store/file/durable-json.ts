// A lowdb adapter whose writes are atomic and durable, and grouped: a crash mid-write leaves the
// previous or the new file (write temp, fsync, rename, fsync directory), a write resolves only once
// it is on disk, and writes requested while one is running share the next single file write.
import { open, readFile, rename } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { SvcError } from '../../errors.js';

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export class DurableJsonFile<T> implements Adapter<T> {
  #latest: T | undefined;
  #running: Promise<void> | null = null;
  #waiting: Deferred | null = null;
  /** How many file writes were made; tests read it to see grouping at work. */
  writes = 0;

  constructor(readonly path: string) {}

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
      throw new SvcError('store_corrupt', `data file ${this.path} cannot be parsed (${(e as Error).message}); it was left untouched`, { cause: e });
    }
  }

  write(data: T): Promise<void> {
    this.#latest = data;
    if (this.#waiting) return this.#waiting.promise;
    if (!this.#running) return this.#start();
    this.#waiting = deferred();
    return this.#waiting.promise;
  }

  /** Resolves when no write is running or waiting. */
  async settled(): Promise<void> {
    while (this.#running || this.#waiting) {
      await (this.#waiting?.promise ?? this.#running)?.catch(() => {});
    }
  }

  #start(): Promise<void> {
    const text = JSON.stringify(this.#latest);
    const run = this.#replace(text).finally(() => {
      this.#running = null;
      const next = this.#waiting;
      if (next) {
        this.#waiting = null;
        this.#start().then(next.resolve, next.reject);
      }
    });
    this.#running = run;
    return run;
  }

  async #replace(text: string): Promise<void> {
    const dir = dirname(this.path);
    const tmp = join(dir, `.${basename(this.path)}.${process.pid}.tmp`);
    const fh = await open(tmp, 'w', 0o600);
    try {
      await fh.writeFile(text);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, this.path);
    const dh = await open(dir, 'r');
    try {
      await dh.sync();
    } finally {
      await dh.close();
    }
    this.writes++;
  }
}
