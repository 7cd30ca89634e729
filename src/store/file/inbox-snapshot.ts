// File store: a snapshot of the team inbox's index (inbox/index.snapshot), so that a start adds the
// items it held from a file of numbers (35 bytes an item) instead of parsing every journal line that
// holds them. It is derived data: written when the store closes, read at open only while the journal
// it describes is still there as it was (each segment's inode, and a size it has not shrunk below);
// anything else (a day dropped, a repair, a damaged or missing file) and the journal is read whole,
// as before. Lines written after it (a crash, or a close that skipped it) are read as usual.
import { createHash } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { ROW_COLUMNS, type IndexRows } from './inbox-index.js';

const FILE = 'index.snapshot';
const MAGIC = 'svc inbox index 1\n';
/** A snapshot larger than this is not read (it would be a store of some 30 million items: the journal is read instead). */
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
  rows: IndexRows;
}

export async function writeSnapshot(dir: string, s: Snapshot): Promise<void> {
  const { rows, ...meta } = s;
  const blobs = ROW_COLUMNS.map((k) => Buffer.from(rows[k].buffer, rows[k].byteOffset, rows[k].byteLength));
  const hash = createHash('sha256');
  for (const b of blobs) hash.update(b);
  const head = JSON.stringify({ ...meta, rows: rows.rows, workspaces: rows.workspaces, days: rows.days, refs: rows.refs, sha256: hash.digest('hex') });
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
    if (buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
    const nl = buf.indexOf(0x0a, MAGIC.length);
    const head = JSON.parse(buf.toString('utf8', MAGIC.length, nl)) as SnapshotMeta & Pick<IndexRows, 'rows' | 'workspaces' | 'days' | 'refs'> & { sha256: string };
    const n = head.rows;
    const sizes = { ws: 4, flags: 1, day: 2, pos: 8, createdS: 4, createdMs: 2, idHash: 4, midHash: 4, tKey: 8 } as const;
    let at = nl + 1;
    const hash = createHash('sha256');
    const cols = {} as Record<(typeof ROW_COLUMNS)[number], ArrayBuffer>;
    for (const k of ROW_COLUMNS) {
      const len = n * sizes[k];
      if (at + len > buf.length) return null;
      const part = buf.subarray(at, at + len);
      hash.update(part);
      // Copied out: a typed array needs its own alignment.
      cols[k] = (part.buffer as ArrayBuffer).slice(part.byteOffset, part.byteOffset + len);
      at += len;
    }
    if (at !== buf.length || hash.digest('hex') !== head.sha256) return null;
    const rows: IndexRows = {
      rows: n, workspaces: head.workspaces, days: head.days, refs: head.refs,
      ws: new Uint32Array(cols.ws), flags: new Uint8Array(cols.flags), day: new Uint16Array(cols.day), pos: new Float64Array(cols.pos), createdS: new Uint32Array(cols.createdS),
      createdMs: new Uint16Array(cols.createdMs), idHash: new Uint32Array(cols.idHash), midHash: new Uint32Array(cols.midHash), tKey: new Float64Array(cols.tKey),
    };
    return { extent: head.extent, effects: head.effects, usage: head.usage, dead: head.dead ?? [], rows };
  } catch {
    return null;
  }
}

/** Whether the journal still holds what the snapshot describes: every segment there, the same file, no shorter. */
export function stillHolds(recorded: Segment[], now: Segment[]): boolean {
  return recorded.every((r) => now.some((s) => s.segment === r.segment && s.ino === r.ino && s.size >= r.size));
}
