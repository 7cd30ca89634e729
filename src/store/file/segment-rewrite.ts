// File store: a journal segment written again without the lines nobody needs any more (the inbox's
// deleted items, whose bytes would otherwise stay on disk until their day is dropped). The lines
// kept are copied byte for byte, attachment and all, or replaced by a smaller record the caller
// gives; the new file is written beside the old one and made durable before Journal.rewrite renames
// it over it, so a crash at any point leaves one whole file or the other. A segment with a line
// that cannot be read, or a torn tail, is not rewritten: what `svc store repair` would show must
// not be dropped by a compaction.
import { open, type FileHandle } from 'node:fs/promises';
import { scanFile, type Validate } from './journal-scan.js';

/** What a rewrite does with one record: keep its line (and its attachment), drop both, or write this record instead (with its attachment when `attachment` is true). */
export type Keep<T> = 'keep' | 'drop' | { record: T; attachment: boolean };

/** Where each kept record's line went: old offset → new offset and length. */
export type Moved = Map<number, { offset: number; length: number }>;

export interface Rewritten {
  moved: Moved;
  before: number;
  after: number;
}

/** A piece of the new file: bytes copied from the old one, or a record's new line. */
type Piece =
  { from: number; to: number; record: number } | { text: string; attachment: { from: number; to: number } | null; record: number };

const COPY_CHUNK = 1024 * 1024;

/** The bytes [from, to) of `src` appended to `dst` at `at`, a chunk at a time. */
async function copy(src: FileHandle, dst: FileHandle, buf: Buffer, from: number, to: number, at: number): Promise<void> {
  for (let pos = from; pos < to;) {
    const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, to - pos), pos);
    if (bytesRead <= 0) throw new Error(`segment ended at ${pos} while rewriting (expected ${to})`);
    for (let done = 0; done < bytesRead;) done += (await dst.write(buf, done, bytesRead - done, at + pos - from + done)).bytesWritten;
    pos += bytesRead;
  }
}

/**
 * Writes `tmp` from the segment at `path` with what `keep` says of each record (called in the order
 * written, with where its line lies). null when the segment has a bad line or a torn tail (left as
 * it is). The caller renames `tmp` over `path`.
 */
export async function rewriteSegment<T>(
  path: string,
  stem: string,
  tmp: string,
  validate: Validate,
  keep: (record: T, offset: number, length: number) => Keep<T>,
): Promise<Rewritten | null> {
  const pieces: Piece[] = [];
  const scan = await scanFile<T>(path, stem, validate, (record, offset, length, attachment) => {
    const what = keep(record, offset, length);
    if (what === 'drop') return;
    // scanFile gives where the attachment's line starts (its `~`) and its characters after the `~`; the line ends with a newline.
    const att = attachment && { from: attachment.offset, to: attachment.offset + attachment.length + 2 };
    if (what === 'keep') pieces.push({ from: att?.from ?? offset, to: offset + length, record: offset });
    else pieces.push({ text: JSON.stringify(what.record) + '\n', attachment: what.attachment ? att : null, record: offset });
  });
  if (scan.bad.length || scan.tornAt !== null) return null;
  const src = await open(path, 'r');
  const dst = await open(tmp, 'w', 0o600);
  const moved: Moved = new Map();
  let at = 0;
  try {
    const buf = Buffer.allocUnsafe(COPY_CHUNK);
    for (const p of pieces) {
      if ('from' in p) {
        await copy(src, dst, buf, p.from, p.to, at);
        const line = p.to - p.record;
        at += p.to - p.from;
        moved.set(p.record, { offset: at - line, length: line });
        continue;
      }
      if (p.attachment) {
        await copy(src, dst, buf, p.attachment.from, p.attachment.to, at);
        at += p.attachment.to - p.attachment.from;
      }
      const bytes = Buffer.from(p.text);
      for (let done = 0; done < bytes.length;) done += (await dst.write(bytes, done, bytes.length - done, at + done)).bytesWritten;
      moved.set(p.record, { offset: at, length: bytes.length });
      at += bytes.length;
    }
    await dst.datasync();
  } finally {
    await Promise.all([src.close(), dst.close()]);
  }
  return { moved, before: scan.size, after: at };
}
