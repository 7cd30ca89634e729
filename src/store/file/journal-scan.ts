// File store: a journal segment read a chunk at a time (journal.ts's reads at start, `svc store
// check` and repair, a segment's rewrite): records with where their lines lie, attachment lines
// passed over without being held, bad lines and a torn tail reported. Nothing is read whole.
import { open, type FileHandle } from 'node:fs/promises';

/** The first byte of an attachment's line (a record's line starts with `{`). */
export const ATTACHMENT = 0x7e; // ~
/** How much of a segment a streamed read holds at once (a longer line is gathered whole). */
export const READ_CHUNK = 1024 * 1024;

export type Validate = (record: unknown) => string | null;

/** A line that cannot be read, where it lies and why. */
export interface BadLine {
  file: string;
  partition: string;
  /** 1-based line number. */
  line: number;
  offset: number;
  reason: string;
  raw: Buffer;
}

/** What a streamed read of one segment file found besides its records. */
export interface FileScan {
  /** Lines that are not JSON or not a record of the right shape (their `partition` is the file's stem). */
  bad: BadLine[];
  /** Where a last line without its newline starts (a crash mid-append, never acknowledged), or null. */
  tornAt: number | null;
  size: number;
}

/**
 * Reads a journal file a chunk at a time, calling `onRecord` for each good record with where its
 * line lies. Attachment lines (`~`) are passed over without being held; a record line longer than
 * a chunk is gathered whole. A missing file reads as empty.
 */
export async function scanFile<T>(
  path: string,
  stem: string,
  validate: Validate,
  onRecord?: (record: T, offset: number, length: number, attachment: { offset: number; length: number } | null) => void,
  /** Where to start: the start of a line (what an index already holds is passed over); line numbers then count from it. */
  from = 0,
): Promise<FileScan> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { bad: [], tornAt: null, size: 0 };
    throw e;
  }
  const bad: BadLine[] = [];
  try {
    const { size } = await fh.stat();
    const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(size, 1)));
    let parts: Buffer[] = [];
    let lineStart = from;
    let atLineStart = true;
    let skipping = false;
    /** The attachment line just before this one (its characters after `~`), for the record it belongs to. */
    let attachment: { offset: number; length: number } | null = null;
    let n = 1;
    const line = (end: number) => {
      const text = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      parts = [];
      const before = attachment;
      attachment = skipping ? { offset: lineStart, length: end - lineStart - 1 } : null;
      if (!skipping && text.length) {
        let reason: string | null;
        let record: unknown;
        try {
          record = JSON.parse(text.toString('utf8'));
          reason = validate(record);
        } catch (e) {
          reason = `not JSON (${(e as Error).message})`;
        }
        if (reason === null) onRecord?.(record as T, lineStart, end + 1 - lineStart, before);
        else bad.push({ file: path, partition: stem, line: n, offset: lineStart, reason, raw: text });
      }
      n++;
      lineStart = end + 1;
      atLineStart = true;
      skipping = false;
    };
    for (let pos = from; pos < size;) {
      const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, size - pos), pos);
      if (bytesRead <= 0) break;
      for (let from = 0; from < bytesRead;) {
        const nl = chunk.indexOf(0x0a, from);
        const end = nl === -1 || nl >= bytesRead ? bytesRead : nl;
        if (atLineStart && end > from) {
          skipping = chunk[from] === ATTACHMENT;
          atLineStart = false;
        }
        // The chunk is reused: what a line keeps of it is copied.
        if (!skipping && end > from) parts.push(Buffer.from(chunk.subarray(from, end)));
        if (end === bytesRead) break;
        line(pos + end);
        from = end + 1;
      }
      pos += bytesRead;
    }
    return { bad, tornAt: lineStart < size ? lineStart : null, size };
  } finally {
    await fh.close();
  }
}
