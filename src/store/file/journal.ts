// Day-partitioned journals for the file store's high-volume records (messages, events, webhook
// deliveries): one JSON line per record version in DIR/<name>/<YYYY-MM-DD>.jsonl (or another
// partition name, for a journal that is never dropped). A partition is written in segments of at
// most SEGMENT_MAX bytes (<day>.jsonl, then <day>.1.jsonl, <day>.2.jsonl, ...), and every read
// streams a segment or reads one line by its offset: no file is ever read whole into one buffer
// (Node cannot hold 2 GiB in one, and a day of 25 MB messages passes that in seconds). An append
// costs what it writes, never a rewrite of what is there, and concurrent appends share one write
// and one fsync (group commit).
// Old days are dropped whole, which is how retention works. A record may carry an attachment: bytes
// without a newline (a received message in base64) on a line of their own, `~` first, written
// just before the record's line in the same write; reads of the journal pass over such lines, and
// the attachment is read only where its record says it lies. Long because the write path (short
// writes, truncate-back on failure, per-line failure) and the read path (torn tails, offsets) are
// one file format and must change together.
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../../errors.js';
import { GroupCommit } from './group-commit.js';
import { syncDir } from './durable-json.js';
import { ATTACHMENT, READ_CHUNK, scanFile, type BadLine, type Validate } from './journal-scan.js';
import { rewriteSegment, type Keep, type Rewritten } from './segment-rewrite.js';

/** A segment file: its partition and its number (none for the first). */
const SEGMENT_FILE = /^([a-z0-9][a-z0-9-]*)(?:\.([1-9][0-9]{0,5}))?\.jsonl$/;
const PARTITION_NAME = /^[a-z0-9][a-z0-9-]*$/;
/** A segment is closed and the next begun once a write would take it past this. */
export const SEGMENT_MAX = 256 * 1024 * 1024;
/** The suffix of a segment's rewrite before it is renamed over the segment (one left by a crash is removed at open). */
const REWRITE = '.rewrite';

/** A segment's file name without `.jsonl`: the partition, then `.N` for segments after the first. */
export const stemOf = (partition: string, segment = 0): string => (segment ? `${partition}.${segment}` : partition);

/** The partition and segment of a journal file name, or null for another file. */
export function segmentOf(file: string): { partition: string; segment: number } | null {
  const m = SEGMENT_FILE.exec(file);
  return m ? { partition: m[1]!, segment: m[2] ? Number(m[2]) : 0 } : null;
}

function checkPartition(partition: string): void {
  if (!PARTITION_NAME.test(partition)) throw new SvcError('internal', `bad journal partition ${partition}`);
}

/** The UTC day of an ISO timestamp, the partition a record lives in. */
export const dayOf = (iso: string): string => iso.slice(0, 10);

/** How far back a torn-tail search reads at a time. */
const TAIL_CHUNK = 1024 * 1024;

/**
 * Where the last line of a file without its final newline starts: scanning back a chunk at a time
 * as far as it takes (a torn 25 MB relay message is one line), so the cut is never inside it.
 * null when the file ends in a newline (or is empty).
 */
export async function tornTailStart(fh: FileHandle, size: number): Promise<number | null> {
  if (size === 0) return null;
  const buf = Buffer.alloc(Math.min(size, TAIL_CHUNK));
  for (let end = size; end > 0;) {
    const start = Math.max(0, end - buf.length);
    const n = end - start;
    await fh.read(buf, 0, n, start);
    if (end === size && buf[n - 1] === 0x0a) return null;
    const nl = buf.subarray(0, n).lastIndexOf(0x0a);
    if (nl !== -1) return start + nl + 1;
    end = start;
  }
  return 0;
}

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
    const cut = await tornTailStart(fh, size);
    if (cut === null) return;
    await fh.truncate(cut);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export type OpenFile = (path: string, flags: 'a') => Promise<FileHandle>;

/**
 * The append handles a journal opens itself: O_DSYNC, so each write returns once its bytes (and
 * the file size that finds them) are on disk. That is write + fdatasync in one system call and one
 * trip to libuv's thread pool instead of two, which the relay's flushes measured as a third less
 * time under load (bench/RESULTS.md). Where the platform has no O_DSYNC, or a test
 * opens the handles itself, each flush ends with fdatasync as before.
 */
const DSYNC = constants.O_DSYNC ?? 0;
const openDurable: OpenFile = (path) => open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | DSYNC, 0o600);

/** A write that did not reach the disk: the store is unavailable until it does (503, 451 4.3.0). */
function writeFailure(path: string, e: unknown): SvcError {
  const code = (e as NodeJS.ErrnoException).code;
  const why = code === 'ENOSPC' || code === 'EDQUOT' ? 'the disk is full' : (e as Error).message;
  return new SvcError('store_unavailable', `cannot write ${path}: ${why}; nothing was kept`, { cause: e });
}

/** Where one record's line lies; known once the line is on disk. */
export interface LineAt {
  partition: string;
  /** The segment of the partition (absent for the first). */
  segment?: number;
  offset: number;
  length: number;
}

interface PendingLine {
  /** The record's line with its newline. */
  text: string;
  /** Its attachment's characters (one byte each, no newline), written on a line of their own just before it. */
  attachment?: string;
  /** Set when the write that carried this line failed; the line is not in the file. */
  failed?: SvcError;
  /** Told where the line went, for appendLocated. */
  located?: (at: LineAt) => void;
}

/** A flush buffer larger than this is not kept for the next flush (one 25 MB message would pin it). */
const KEEP_BUFFER = 4 * 1024 * 1024;

export class Journal<T> {
  /** Segment files (stems) whose name this process has made durable (syncDir). */
  readonly #named = new Set<string>();
  readonly dir: string;
  #pending = new Map<string, PendingLine[]>();
  /** Append handles by partition, each on the partition's last segment. */
  #handles = new Map<string, FileHandle>();
  /** The segment each open append handle writes. */
  #segment = new Map<string, number>();
  /** Bytes in the segment of each open append handle: the next line's offset. */
  #sizes = new Map<string, number>();
  /** Read handles for readAt by segment stem, opened on first use. */
  #readers = new Map<string, Promise<FileHandle>>();
  readonly #segmentMax: number;
  readonly #validate: Validate;
  #problems = new Map<string, BadLine>();
  /** Partitions whose last failed write could not be cut back: their size before it. */
  #goodSize = new Map<string, number>();
  readonly #commit = new GroupCommit(() => this.#flush());
  readonly #openFile: OpenFile;
  /** Append handles are O_DSYNC (openDurable): a write that returned is on disk, no fdatasync follows. */
  #writesDurable = false;

  private constructor(dir: string, openFile: OpenFile, validate: Validate, segmentMax: number) {
    this.dir = dir;
    this.#openFile = openFile;
    this.#validate = validate;
    this.#segmentMax = segmentMax;
  }

  /**
   * `validate` says what is wrong with a parsed line that is not a record of this journal (null when
   * it is one); `openFile` opens the append handles (tests wrap it to inject short writes);
   * `segmentMax` is SEGMENT_MAX but in tests.
   */
  static async open<T>(dir: string, options: { openFile?: OpenFile; validate?: Validate; segmentMax?: number } = {}): Promise<Journal<T>> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    for (const f of await readdir(dir)) if (f.endsWith(`.jsonl${REWRITE}`)) await rm(join(dir, f), { force: true });
    const j = new Journal<T>(dir, options.openFile ?? openDurable, options.validate ?? (() => null), options.segmentMax ?? SEGMENT_MAX);
    j.#writesDurable = !options.openFile && DSYNC !== 0;
    return j;
  }

  #path(stem: string): string {
    return join(this.dir, `${stem}.jsonl`);
  }

  /** The segments of a partition on disk, first to last (none when it has no file). */
  async #segmentsOf(partition: string): Promise<number[]> {
    return (await readdir(this.dir))
      .flatMap((f) => {
        const s = segmentOf(f);
        return s && s.partition === partition ? [s.segment] : [];
      })
      .sort((a, b) => a - b);
  }

  /**
   * Appends records to their day's partition; resolves once they are on disk, or rejects
   * (store_unavailable) with the file exactly as it was before.
   */
  async append(partition: string, records: readonly T[]): Promise<void> {
    checkPartition(partition);
    if (records.length === 0) return;
    const lines = this.#queue(partition);
    const mine = records.map((r): PendingLine => ({ text: JSON.stringify(r) + '\n' }));
    lines.push(...mine);
    await this.#commit.request();
    if (mine[0]!.failed) throw mine[0]!.failed;
  }

  /**
   * Appends one record and resolves, once it is on disk, with where its line lies, so that a
   * caller can drop a large record from memory and read it back with readAt.
   */
  async appendLocated(partition: string, record: T, attachment?: string): Promise<LineAt> {
    let at: LineAt | undefined;
    // `attachment`: characters of one byte each without a newline (base64), written on a line of
    // their own just before the record's (attachmentAt reads them back from where the record lies
    // and their length). Kept as a string until the flush writes it: no copy of it is made before.
    if (attachment !== undefined && attachment.includes('\n')) throw new SvcError('internal', 'a journal attachment holds a newline');
    const line: PendingLine = { text: JSON.stringify(record) + '\n', attachment, located: (x) => (at = x) };
    this.#queue(partition).push(line);
    await this.#commit.request();
    if (line.failed) throw line.failed;
    return at!;
  }

  /** Appends records in one write and resolves, once they are on disk, with where each line lies. */
  async appendAllLocated(partition: string, records: readonly T[]): Promise<LineAt[]> {
    const at: LineAt[] = [];
    const lines = records.map((r, i): PendingLine => ({ text: JSON.stringify(r) + '\n', located: (x) => (at[i] = x) }));
    this.#queue(partition).push(...lines);
    await this.#commit.request();
    if (lines[0]?.failed) throw lines[0].failed;
    return at;
  }

  /** The record whose line lies at `at`, or null when its day was dropped. */
  async readAt(at: LineAt): Promise<T | null> {
    const line = await this.#bytesAt(at);
    return line && (JSON.parse(line.toString('utf8')) as T);
  }

  /**
   * The record whose line starts at `at` when its length is not known (an index that keeps only
   * where lines start): read a chunk at a time up to its newline. With `upTo`, reading stops at the
   * record's key of that name (which the writer put last, holding what the caller does not need:
   * message bodies), and the record is parsed without it. null when the day was dropped.
   */
  async recordFrom(at: { partition: string; segment?: number; offset: number }, upTo?: string): Promise<T | null> {
    const stem = stemOf(at.partition, at.segment);
    const fh = await this.#reader(stem);
    if (!fh) return null;
    const marker = upTo === undefined ? null : Buffer.from(`,"${upTo}":`);
    let buf = Buffer.allocUnsafe(16 * 1024);
    let have = 0;
    for (;;) {
      if (have === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(Math.min(buf.length, READ_CHUNK))]);
      const { bytesRead } = await fh.read(buf, have, buf.length - have, at.offset + have);
      const from = Math.max(0, have - (marker?.length ?? 0));
      have += bytesRead;
      // A key's quotes are never inside a JSON string (there they are escaped): the first `,"key":` is the key.
      const cut = marker ? buf.subarray(0, have).indexOf(marker, from) : -1;
      if (cut !== -1) return JSON.parse(`${buf.toString('utf8', 0, cut)}}`) as T;
      const nl = buf.subarray(0, have).indexOf(0x0a, from);
      if (nl !== -1) return JSON.parse(buf.toString('utf8', 0, nl)) as T;
      if (bytesRead === 0)
        throw new SvcError('store_corrupt', `journal ${this.#path(stem)} is shorter than a line it holds; it was left untouched`);
    }
  }

  /** The attachment (`length` characters, as appendLocated took them) of the record whose line lies at `at`, or null when its day was dropped. */
  async attachmentAt(at: LineAt, length: number): Promise<string | null> {
    const line = await this.#bytesAt({ ...at, offset: at.offset - length - 2, length: length + 2 });
    if (line && line[0] !== ATTACHMENT)
      throw new SvcError(
        'store_corrupt',
        `journal ${this.#path(stemOf(at.partition, at.segment))} has no attachment where a record says; it was left untouched`,
      );
    return line && line.toString('latin1', 1);
  }

  /** The bytes of the line at `at` without its newline. */
  async #bytesAt(at: LineAt): Promise<Buffer | null> {
    const stem = stemOf(at.partition, at.segment);
    const fh = await this.#reader(stem);
    if (!fh) return null;
    const buf = Buffer.allocUnsafe(at.length);
    const { bytesRead } = await fh.read(buf, 0, at.length, at.offset);
    if (bytesRead !== at.length || buf[at.length - 1] !== 0x0a)
      throw new SvcError('store_corrupt', `journal ${this.#path(stem)} is shorter than a line it holds; it was left untouched`);
    return buf.subarray(0, at.length - 1);
  }

  /** The read handle of a segment (opened on first use), or null when it is not there. */
  async #reader(stem: string): Promise<FileHandle | null> {
    let reader = this.#readers.get(stem);
    if (!reader) {
      reader = open(this.#path(stem), 'r');
      this.#readers.set(stem, reader);
      reader.catch(() => this.#readers.delete(stem));
    }
    try {
      return await reader;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  /** The lines waiting for the next flush into `partition`. */
  #queue(partition: string): PendingLine[] {
    checkPartition(partition);
    let lines = this.#pending.get(partition);
    if (!lines) this.#pending.set(partition, (lines = []));
    return lines;
  }

  /** A partition's segment files as they are now: number, size and inode (to know them again). */
  async extent(partition: string): Promise<Array<{ segment: number; size: number; ino: number }>> {
    const out: Array<{ segment: number; size: number; ino: number }> = [];
    for (const segment of await this.#segmentsOf(partition)) {
      const s = await stat(this.#path(stemOf(partition, segment)));
      out.push({ segment, size: s.size, ino: s.ino });
    }
    return out;
  }

  /** Oldest first. */
  async partitions(): Promise<string[]> {
    return [...new Set((await readdir(this.dir)).flatMap((n) => segmentOf(n)?.partition ?? []))].sort();
  }

  /**
   * Every record of a day in the order written. A torn last line (a crash mid-append, never
   * acknowledged) is skipped; a bad line anywhere else means the file was damaged and is reported.
   */
  async read(partition: string): Promise<T[]> {
    return (await this.readLocated(partition)).map((l) => l.record);
  }

  /** read, with where each line lies (for readAt). Bad lines are skipped and kept in `problems`. */
  async readLocated(partition: string): Promise<Array<{ record: T; at: LineAt }>> {
    const out: Array<{ record: T; at: LineAt }> = [];
    await this.each(partition, (record, at) => out.push({ record, at }));
    return out;
  }

  /**
   * Every record of a partition in the order written, streamed segment by segment (no array of a
   * whole day); with `from`, only those from that place on (a segment, and the start of a line in it).
   */
  async each(partition: string, fn: (record: T, at: LineAt) => void, from?: { segment: number; offset: number }): Promise<void> {
    checkPartition(partition);
    for (const segment of await this.#segmentsOf(partition)) {
      if (from && segment < from.segment) continue;
      const stem = stemOf(partition, segment);
      const start = from && segment === from.segment ? from.offset : 0;
      const scan = await scanFile<T>(
        this.#path(stem),
        stem,
        this.#validate,
        (record, offset, length) => fn(record, segment ? { partition, segment, offset, length } : { partition, offset, length }),
        start,
      );
      for (const b of scan.bad) this.#problems.set(`${stem}:${b.offset}`, b);
    }
  }

  /**
   * Lines that could not be read (not JSON, or not a record of the right shape), found by the reads
   * so far. They are skipped, never dropped: the file keeps them until `svc store repair`.
   */
  get problems(): BadLine[] {
    return [...this.#problems.values()];
  }

  /**
   * Writes a segment again with what `keep` says of each of its records (segment-rewrite.ts), and
   * puts the new file in the old one's place; null when it was left as it is (a bad line or a torn
   * tail). The caller makes sure nothing is appended to the partition meanwhile, and moves what
   * points into the segment by the offsets returned.
   */
  async rewrite(partition: string, segment: number, keep: (record: T, at: LineAt) => Keep<T>): Promise<Rewritten | null> {
    checkPartition(partition);
    await this.#commit.settled();
    // The next append reopens the partition's last segment, whatever file it is then.
    if (this.#segment.get(partition) === segment) {
      await this.#handles.get(partition)?.close();
      this.#handles.delete(partition);
      this.#sizes.delete(partition);
      this.#segment.delete(partition);
    }
    const stem = stemOf(partition, segment);
    const path = this.#path(stem);
    const tmp = `${path}${REWRITE}`;
    const at = (offset: number, length: number): LineAt =>
      segment ? { partition, segment, offset, length } : { partition, offset, length };
    const done = await rewriteSegment<T>(path, stem, tmp, this.#validate, (record, offset, length) => keep(record, at(offset, length)));
    if (!done) return null;
    await rename(tmp, path);
    await syncDir(this.dir);
    // Readers opened on the old file are closed once their reads end; the next read opens the new one.
    await this.#closeReader(stem);
    return done;
  }

  /** Removes a whole day, every segment of it (retention). */
  async drop(partition: string): Promise<void> {
    await this.#commit.settled();
    await this.#handles.get(partition)?.close();
    this.#handles.delete(partition);
    this.#sizes.delete(partition);
    this.#segment.delete(partition);
    for (const segment of await this.#segmentsOf(partition)) {
      const stem = stemOf(partition, segment);
      this.#named.delete(stem);
      await this.#closeReader(stem);
      await rm(this.#path(stem), { force: true });
    }
  }

  async close(): Promise<void> {
    await this.#commit.settled();
    for (const h of this.#handles.values()) await h.close();
    this.#handles.clear();
    this.#sizes.clear();
    this.#segment.clear();
    for (const p of [...this.#readers.keys()]) await this.#closeReader(p);
  }

  async #closeReader(stem: string): Promise<void> {
    const reader = this.#readers.get(stem);
    this.#readers.delete(stem);
    await reader?.then(
      (fh) => fh.close(),
      () => {},
    );
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = new Map();
    // Each partition stands alone: a failure fails the lines it carried, never another day's.
    for (const [partition, lines] of batch) {
      try {
        await this.#flushPartition(partition, lines);
      } catch (e) {
        const failure = writeFailure(this.#path(stemOf(partition, this.#segment.get(partition))), e);
        for (const l of lines) l.failed = failure;
      }
    }
  }

  /**
   * The append handle of a partition's last segment; `next` begins a new segment after it (the
   * caller closed the full one).
   */
  async #handle(partition: string, next?: number): Promise<FileHandle> {
    const known = this.#handles.get(partition);
    if (known) return known;
    const segment = next ?? (await this.#segmentsOf(partition)).at(-1) ?? 0;
    const stem = stemOf(partition, segment);
    const path = this.#path(stem);
    await cutTornTail(path);
    const fh = await this.#openFile(path, 'a');
    let size: number;
    try {
      size = (await fh.stat()).size;
      // A write that failed and could not be taken back then: take it back now, before anything
      // is appended after it (or the next line would be glued onto a torn one).
      const good = this.#goodSize.get(partition);
      if (good !== undefined && size > good) {
        await fh.truncate(good);
        await fh.datasync();
        size = good;
      }
      this.#goodSize.delete(partition);
    } catch (e) {
      await fh.close().catch(() => {});
      throw e;
    }
    this.#handles.set(partition, fh);
    this.#sizes.set(partition, size);
    this.#segment.set(partition, segment);
    // A file's name must be on disk before a line in it is acknowledged: made durable once per
    // file and process (a process that died before doing it acknowledged nothing in it), not at
    // every reopen of a handle closed to keep few open.
    if (!this.#named.has(stem)) {
      await syncDir(this.dir);
      this.#named.add(stem);
    }
    // Few days are written at once; keep the newest handles open.
    for (const [old, h] of this.#handles) {
      if (this.#handles.size <= 4) break;
      if (old !== partition) {
        await h.close();
        this.#handles.delete(old);
        this.#sizes.delete(old);
        this.#segment.delete(old);
      }
    }
    return fh;
  }

  async #flushPartition(partition: string, lines: PendingLine[]): Promise<void> {
    let fh = await this.#handle(partition);
    // Each line encoded once, straight into the flush's buffer; its length is where the next starts.
    const lengths = lines.map((l) => Buffer.byteLength(l.text) + (l.attachment === undefined ? 0 : l.attachment.length + 2));
    const size = lengths.reduce((a, b) => a + b, 0);
    // A segment that this write would take past its bound is closed and the next one begun (a
    // write larger than the bound goes whole into a segment of its own).
    if (this.#sizes.get(partition)! > 0 && this.#sizes.get(partition)! + size > this.#segmentMax) {
      const next = this.#segment.get(partition)! + 1;
      await fh.close();
      this.#handles.delete(partition);
      this.#sizes.delete(partition);
      this.#segment.delete(partition);
      fh = await this.#handle(partition, next);
    }
    const offset = this.#sizes.get(partition)!;
    const segment = this.#segment.get(partition)!;
    const data = this.#buffer(size);
    let end = 0;
    for (const l of lines) {
      if (l.attachment !== undefined) {
        data[end++] = ATTACHMENT;
        end += data.write(l.attachment, end, 'latin1');
        data[end++] = 0x0a;
      }
      end += data.write(l.text, end, 'utf8');
    }
    // The buffer is not zeroed: every byte written must be one of the lines', never what it held.
    if (end !== size) throw new SvcError('internal', `journal flush encoded ${end} bytes where its lines have ${size}`);
    try {
      // On Linux a write into a nearly full filesystem can be short without an error: loop until
      // every byte is there; a write that makes no progress is a full disk.
      for (let done = 0; done < size;) {
        const { bytesWritten } = await fh.write(data, done, size - done);
        if (bytesWritten <= 0) throw Object.assign(new Error('no space left on device (write made no progress)'), { code: 'ENOSPC' });
        done += bytesWritten;
      }
      if (!this.#writesDurable) await fh.datasync();
    } catch (e) {
      await this.#takeBack(partition, fh, offset);
      throw e;
    }
    this.#sizes.set(partition, offset + size);
    let at = offset;
    lines.forEach((l, i) => {
      const before = l.attachment === undefined ? 0 : l.attachment.length + 2;
      const where = { partition, offset: at + before, length: lengths[i]! - before };
      l.located?.(segment ? { ...where, segment } : where);
      at += lengths[i]!;
    });
  }

  /** The flushes' buffer (they run one at a time): reused, so that a flush allocates nothing. */
  #kept: Buffer | null = null;
  #buffer(size: number): Buffer {
    if (this.#kept && this.#kept.length >= size) return this.#kept;
    const b = Buffer.allocUnsafeSlow(Math.max(size, 256 * 1024));
    if (b.length <= KEEP_BUFFER) this.#kept = b;
    return b;
  }

  /**
   * A failed write leaves the file exactly as before it: cut back to the last good offset. If even
   * that fails, the handle is dropped and the offset remembered, so the next append cuts it first.
   */
  async #takeBack(partition: string, fh: FileHandle, offset: number): Promise<void> {
    try {
      await fh.truncate(offset);
      await fh.datasync();
      return;
    } catch {
      this.#goodSize.set(partition, offset);
      this.#handles.delete(partition);
      this.#sizes.delete(partition);
      this.#segment.delete(partition);
      await fh.close().catch(() => {});
    }
  }
}
