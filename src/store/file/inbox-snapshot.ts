// File store: a snapshot of the team inbox's index (inbox/index.snapshot): the index of the received
// items, its columns and hash tables as they are in memory (about 94 bytes an item), so that a start
// reads it back at the speed of the disk instead of parsing every journal line or adding every item
// again. It is derived data: written when the store closes, read at open only while the journal
// it describes is still there as it was (each segment's inode, and a size it has not shrunk below);
// anything else (a day dropped, a repair, a damaged or missing file) and the journal is read whole,
// as before. Lines written after it (a crash, or a close that skipped it) are read as usual.
import { createHash } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { InboxIndex, type IndexImage } from './inbox-index.js';

/** In the inbox journal's directory. */
export const SNAPSHOT_FILE = 'index.snapshot';
const FILE = SNAPSHOT_FILE;
const MAGIC = 'svc inbox index 3\n';
/** A snapshot larger than this is not read (it would be a store of some 11 million items: the journal is read instead). */
const MAX_BYTES = 1024 * 1024 * 1024;

export interface Segment {
  segment: number;
  size: number;
  ino: number;
}

/** Where a line lies (readAt). */
export interface LinePlace {
  partition: string;
  segment?: number;
  offset: number;
  length: number;
}

export interface SnapshotMeta {
  /** The inbox journal as it was when the snapshot was taken: every partition's segments. */
  extent: Record<string, Segment[]>;
  /** Lines within the extent that change message records (replies, bounces): read again at start for them. */
  effects: LinePlace[];
  /** Workspace → [day, bytes charged] (storage use). */
  usage: Array<[string, Array<[string, number]>]>;
  /** `partition/segment` → bytes of deleted items' lines not compacted yet (absent in snapshots before compaction). */
  dead?: Array<[string, number]>;
}

export interface Snapshot extends SnapshotMeta {
  image: IndexImage;
}

export async function writeSnapshot(dir: string, s: Snapshot): Promise<void> {
  const { image, ...meta } = s;
  const { blobs, ...index } = image;
  const hash = createHash('sha256');
  for (const b of blobs) hash.update(b);
  const head = JSON.stringify({ ...meta, index, lengths: blobs.map((b) => b.length), sha256: hash.digest('hex') });
  const tmp = join(dir, `${FILE}.tmp`);
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writev([Buffer.from(MAGIC), Buffer.from(`${head}\n`), ...blobs]);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, join(dir, FILE));
}

/** The snapshot, or null when there is none or it cannot be read whole (then the journal is read instead). */
export async function readSnapshot(dir: string): Promise<Snapshot | null> {
  let buf: Buffer;
  try {
    const fh = await open(join(dir, FILE), 'r');
    try {
      if ((await fh.stat()).size > MAX_BYTES) return null;
    } finally {
      await fh.close();
    }
    buf = await readFile(join(dir, FILE));
  } catch {
    return null;
  }
  try {
    // An older format (or another file): the journal is read, and the next close writes this one.
    if (buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
    const nl = buf.indexOf(0x0a, MAGIC.length);
    const head = JSON.parse(buf.toString('utf8', MAGIC.length, nl)) as SnapshotMeta & {
      index: Omit<IndexImage, 'blobs'>;
      lengths: number[];
      sha256: string;
    };
    // The columns' lengths follow from the item count; the tables' are their own.
    const expected = InboxIndex.columnBytes(head.index.n);
    if (head.lengths.length !== expected.length + 3 || expected.some((b, k) => head.lengths[k] !== b)) return null;
    let at = nl + 1;
    const hash = createHash('sha256');
    const blobs: Buffer[] = [];
    for (const len of head.lengths) {
      if (at + len > buf.length) return null;
      const part = buf.subarray(at, at + len);
      hash.update(part);
      blobs.push(part);
      at += len;
    }
    if (at !== buf.length || hash.digest('hex') !== head.sha256) return null;
    return { extent: head.extent, effects: head.effects, usage: head.usage, dead: head.dead ?? [], image: { ...head.index, blobs } };
  } catch {
    return null;
  }
}

/** Whether the journal still holds what the snapshot describes: every segment there, the same file, no shorter. */
export function stillHolds(recorded: Segment[], now: Segment[]): boolean {
  return recorded.every((r) => now.some((s) => s.segment === r.segment && s.ino === r.ino && s.size >= r.size));
}
