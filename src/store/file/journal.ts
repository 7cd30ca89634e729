// Day-partitioned journals for the file store's high-volume records (messages, events, webhook
// deliveries): one JSON line per record version in DIR/<name>/<YYYY-MM-DD>.jsonl (or another
// partition name, for a journal that is never dropped). An append costs
// what it writes, never a rewrite of what is there, and concurrent appends share one write and one
// fsync (group commit). Old days are dropped whole, which is how retention works.
import { mkdir, open, readdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../errors.js';
import { GroupCommit } from './group-commit.js';
import { syncDir } from './durable-json.js';

const PARTITION = /^([a-z0-9][a-z0-9-]*)\.jsonl$/;
const PARTITION_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** The UTC day of an ISO timestamp, the partition a record lives in. */
export const dayOf = (iso: string): string => iso.slice(0, 10);

/**
 * A crash in the middle of an append can leave a last line without its newline. That line was never
 * acknowledged; cut it before appending, or the next record would be glued onto it.
 */
async function cutTornTail(path: string): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r+');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  try {
    const { size } = await fh.stat();
    if (size === 0) return;
    const tailSize = Math.min(size, 4 * 1024 * 1024);
    const buf = Buffer.alloc(tailSize);
    await fh.read(buf, 0, tailSize, size - tailSize);
    if (buf[tailSize - 1] === 0x0a) return;
    const lastNewline = buf.lastIndexOf(0x0a);
    await fh.truncate(lastNewline === -1 ? size - tailSize : size - tailSize + lastNewline + 1);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class Journal<T> {
  readonly dir: string;
  #pending = new Map<string, string[]>();
  #handles = new Map<string, FileHandle>();
  readonly #commit = new GroupCommit(() => this.#flush());

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async open<T>(dir: string): Promise<Journal<T>> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return new Journal<T>(dir);
  }

  /** Appends records to their day's partition; resolves once they are on disk. */
  append(partition: string, records: readonly T[]): Promise<void> {
    if (!PARTITION_NAME.test(partition)) throw new SvcError('internal', `bad journal partition ${partition}`);
    if (records.length === 0) return Promise.resolve();
    const lines = this.#pending.get(partition) ?? [];
    for (const r of records) lines.push(JSON.stringify(r) + '\n');
    this.#pending.set(partition, lines);
    return this.#commit.request();
  }

  /** Oldest first. */
  async partitions(): Promise<string[]> {
    return (await readdir(this.dir)).flatMap((n) => PARTITION.exec(n)?.[1] ?? []).sort();
  }

  /**
   * Every record of a day in the order written. A torn last line (a crash mid-append, never
   * acknowledged) is skipped; a bad line anywhere else means the file was damaged and is reported.
   */
  async read(partition: string): Promise<T[]> {
    let text: string;
    try {
      text = await readFile(join(this.dir, `${partition}.jsonl`), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const lines = text.split('\n');
    const out: T[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (!line) continue;
      try {
        out.push(JSON.parse(line) as T);
      } catch {
        if (i === lines.length - 1) break;
        throw new SvcError('store_corrupt', `journal ${join(this.dir, partition)}.jsonl line ${i + 1} cannot be parsed; it was left untouched`);
      }
    }
    return out;
  }

  /** Removes a whole day (retention). */
  async drop(partition: string): Promise<void> {
    await this.#commit.settled();
    await this.#handles.get(partition)?.close();
    this.#handles.delete(partition);
    await rm(join(this.dir, `${partition}.jsonl`), { force: true });
  }

  async close(): Promise<void> {
    await this.#commit.settled();
    for (const h of this.#handles.values()) await h.close();
    this.#handles.clear();
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = new Map();
    for (const [partition, lines] of batch) {
      let fh = this.#handles.get(partition);
      const created = !fh;
      if (!fh) {
        const path = join(this.dir, `${partition}.jsonl`);
        await cutTornTail(path);
        fh = await open(path, 'a', 0o600);
        this.#handles.set(partition, fh);
        // Few days are written at once; keep the newest handles open.
        for (const [old, h] of this.#handles) {
          if (this.#handles.size <= 4) break;
          if (old !== partition) {
            await h.close();
            this.#handles.delete(old);
          }
        }
      }
      await fh.write(lines.join(''));
      await fh.datasync();
      if (created) await syncDir(this.dir);
    }
  }
}
