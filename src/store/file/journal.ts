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

function checkPartition(partition: string): void {
  if (!PARTITION_NAME.test(partition)) throw new SvcError('internal', `bad journal partition ${partition}`);
}

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

/** Where one record's line lies in its partition file; known once the line is on disk. */
export interface LineAt {
  partition: string;
  offset: number;
  length: number;
}

interface PendingLine {
  text: string;
  /** Told where the line went, for appendLocated. */
  located?: (at: LineAt) => void;
}

export class Journal<T> {
  readonly dir: string;
  #pending = new Map<string, PendingLine[]>();
  #handles = new Map<string, FileHandle>();
  /** Bytes in each partition file with an open append handle: the next line's offset. */
  #sizes = new Map<string, number>();
  /** Read handles for readAt, opened on first use. */
  #readers = new Map<string, Promise<FileHandle>>();
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
    checkPartition(partition);
    if (records.length === 0) return Promise.resolve();
    const lines = this.#queue(partition);
    for (const r of records) lines.push({ text: JSON.stringify(r) + '\n' });
    return this.#commit.request();
  }

  /**
   * Appends one record and resolves, once it is on disk, with where its line lies, so that a
   * caller can drop a large record from memory and read it back with readAt.
   */
  async appendLocated(partition: string, record: T): Promise<LineAt> {
    let at: LineAt | undefined;
    this.#queue(partition).push({ text: JSON.stringify(record) + '\n', located: (x) => (at = x) });
    await this.#commit.request();
    return at!;
  }

  /** The record whose line lies at `at`, or null when its day was dropped. */
  async readAt(at: LineAt): Promise<T | null> {
    let reader = this.#readers.get(at.partition);
    if (!reader) {
      reader = open(join(this.dir, `${at.partition}.jsonl`), 'r');
      this.#readers.set(at.partition, reader);
      reader.catch(() => this.#readers.delete(at.partition));
    }
    let fh: FileHandle;
    try {
      fh = await reader;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
    const buf = Buffer.allocUnsafe(at.length);
    const { bytesRead } = await fh.read(buf, 0, at.length, at.offset);
    if (bytesRead !== at.length || buf[at.length - 1] !== 0x0a) throw new SvcError('store_corrupt', `journal ${join(this.dir, at.partition)}.jsonl is shorter than a line it holds; it was left untouched`);
    return JSON.parse(buf.toString('utf8', 0, at.length - 1)) as T;
  }

  /** The lines waiting for the next flush into `partition`. */
  #queue(partition: string): PendingLine[] {
    checkPartition(partition);
    let lines = this.#pending.get(partition);
    if (!lines) this.#pending.set(partition, (lines = []));
    return lines;
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
    return (await this.readLocated(partition)).map((l) => l.record);
  }

  /** read, with where each line lies (for readAt). */
  async readLocated(partition: string): Promise<Array<{ record: T; at: LineAt }>> {
    let buf: Buffer;
    try {
      buf = await readFile(join(this.dir, `${partition}.jsonl`));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: Array<{ record: T; at: LineAt }> = [];
    for (let start = 0, n = 1; start < buf.length; n++) {
      const nl = buf.indexOf(0x0a, start);
      const end = nl === -1 ? buf.length : nl;
      if (end > start) {
        try {
          out.push({ record: JSON.parse(buf.toString('utf8', start, end)) as T, at: { partition, offset: start, length: end + 1 - start } });
        } catch {
          if (nl === -1) break;
          throw new SvcError('store_corrupt', `journal ${join(this.dir, partition)}.jsonl line ${n} cannot be parsed; it was left untouched`);
        }
      }
      if (nl === -1) break;
      start = nl + 1;
    }
    return out;
  }

  /** Removes a whole day (retention). */
  async drop(partition: string): Promise<void> {
    await this.#commit.settled();
    await this.#handles.get(partition)?.close();
    this.#handles.delete(partition);
    this.#sizes.delete(partition);
    await this.#closeReader(partition);
    await rm(join(this.dir, `${partition}.jsonl`), { force: true });
  }

  async close(): Promise<void> {
    await this.#commit.settled();
    for (const h of this.#handles.values()) await h.close();
    this.#handles.clear();
    this.#sizes.clear();
    for (const p of [...this.#readers.keys()]) await this.#closeReader(p);
  }

  async #closeReader(partition: string): Promise<void> {
    const reader = this.#readers.get(partition);
    this.#readers.delete(partition);
    await reader?.then((fh) => fh.close(), () => {});
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
        this.#sizes.set(partition, (await fh.stat()).size);
        // Few days are written at once; keep the newest handles open.
        for (const [old, h] of this.#handles) {
          if (this.#handles.size <= 4) break;
          if (old !== partition) {
            await h.close();
            this.#handles.delete(old);
            this.#sizes.delete(old);
          }
        }
      }
      const offset = this.#sizes.get(partition)!;
      const data = Buffer.from(lines.map((l) => l.text).join(''));
      try {
        await fh.write(data);
        await fh.datasync();
      } catch (e) {
        // How much of the write landed is unknown: the next append opens and measures afresh.
        this.#handles.delete(partition);
        this.#sizes.delete(partition);
        await fh.close().catch(() => {});
        throw e;
      }
      this.#sizes.set(partition, offset + data.length);
      if (created) await syncDir(this.dir);
      let at = offset;
      for (const l of lines) {
        const length = Buffer.byteLength(l.text);
        l.located?.({ partition, offset: at, length });
        at += length;
      }
    }
  }
}
