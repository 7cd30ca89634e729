// A file store's snapshot, taken while the daemon runs (`svc backup`), and its restore into a new
// directory (`svc restore`). The snapshot is a tar file (a well-kept format: `tar -tf` lists it).
//
// Consistent without stopping anything: in one synchronous step every file of the store is
// opened and its size read. svc.json is only ever replaced whole (written aside, then renamed) and
// journals only appended to or rewritten aside and renamed, so an open file keeps the content it
// had at that instant, whatever happens after; the bytes are then copied at leisure. The result
// is what a crash at that instant would have left: a journal's last line cut short by a write in
// flight is left out (as the store leaves out a torn last line), and the store's own crash
// rules (a suppression written before its outcome line, harmlessly again) make the rest agree.
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { link, mkdir, open, readdir, rm } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { SvcError } from '../../errors.js';
import { DATA_FILE } from './doc.js';
import { LOCK_FILE } from './lock.js';
import { SOCKET_FILE } from './admin-protocol.js';
import { SNAPSHOT_FILE } from './inbox-snapshot.js';
import type { Snapshot } from '../port/backup.js';

/** Not store data: the owner's lock and socket, a derived index, repair evidence, unfinished rewrites. */
const SKIP_NAMES = new Set([LOCK_FILE, SOCKET_FILE, SNAPSHOT_FILE]);
const SKIP_DIRS = new Set(['quarantine']);
const BLOCK = 512;

interface Held {
  path: string;
  fd: number;
  size: number;
  mode: number;
  mtime: Date;
}

function walk(dir: string, root: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!(dir === root && SKIP_DIRS.has(e.name))) walk(p, root, out);
    } else if (e.isFile() && !SKIP_NAMES.has(e.name) && !e.name.includes('.rewrite') && !e.name.endsWith('.partial')) {
      out.push(p);
    }
  }
}

/** The bytes of a journal up to its last whole line (a write in flight is left out). */
function wholeLines(fd: number, size: number): number {
  let end = size;
  const buf = Buffer.alloc(64 * 1024);
  while (end > 0) {
    const start = Math.max(0, end - buf.length);
    const n = readSync(fd, buf, 0, end - start, start);
    const i = buf.subarray(0, n).lastIndexOf(0x0a);
    if (i >= 0) return start + i + 1;
    end = start;
  }
  return 0;
}

export async function takeSnapshot(dir: string, out: string): Promise<Snapshot> {
  // The instant: every file opened and measured before anything else runs.
  const paths: string[] = [];
  walk(dir, dir, paths);
  const held: Held[] = [];
  try {
    for (const path of paths) {
      let fd: number;
      try {
        fd = openSync(path, 'r');
      } catch (e) {
        // Removed between the listing and here (a day's journal dropped): not part of the instant.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
      const st = fstatSync(fd);
      held.push({ path, fd, size: st.size, mode: st.mode & 0o777, mtime: st.mtime });
    }
    for (const h of held) if (h.path.endsWith('.jsonl')) h.size = wholeLines(h.fd, h.size);
    if (!held.some((h) => relative(dir, h.path) === DATA_FILE)) throw new SvcError('not_found', `no svc store at ${dir}`);
    // svc.json first: a restore (or a person with tar) finds the store's own file at once.
    held.sort((a, b) => (relative(dir, a.path) === DATA_FILE ? -1 : relative(dir, b.path) === DATA_FILE ? 1 : a.path < b.path ? -1 : 1));

    if (existsSync(out)) throw new SvcError('conflict', `cannot write ${out}: EEXIST (a backup never replaces a file)`);
    const partial = `${out}.partial`;
    const fh = await open(partial, 'wx', 0o600).catch((e: NodeJS.ErrnoException) => {
      throw new SvcError(e.code === 'EEXIST' ? 'conflict' : 'not_found', `cannot write ${out}: ${e.code ?? e.message}`);
    });
    let bytes = 0;
    try {
      const write = async (b: Buffer) => {
        await fh.write(b);
        bytes += b.length;
      };
      // tar is loaded for a backup or a restore only, not by every command that opens a store.
      const { Header } = await import('tar');
      for (const h of held) {
        const header = Buffer.alloc(BLOCK);
        new Header({
          path: relative(dir, h.path).split(sep).join('/'),
          mode: h.mode,
          size: h.size,
          mtime: h.mtime,
          type: 'File',
          uid: 0,
          gid: 0,
        }).encode(header, 0);
        await write(header);
        if (h.size > 0) {
          for await (const chunk of createReadStream('', {
            fd: h.fd,
            start: 0,
            end: h.size - 1,
            autoClose: false,
            highWaterMark: 1024 * 1024,
          }))
            await write(chunk as Buffer);
        }
        const pad = (BLOCK - (h.size % BLOCK)) % BLOCK;
        if (pad) await write(Buffer.alloc(pad));
      }
      await write(Buffer.alloc(BLOCK * 2));
      await fh.sync();
    } catch (e) {
      await fh.close().catch(() => {});
      await rm(partial, { force: true });
      throw e;
    }
    await fh.close();
    // Linked, not renamed: a file that appeared at `out` meanwhile is never replaced.
    try {
      await link(partial, out);
    } catch (e) {
      throw new SvcError('conflict', `cannot write ${out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    } finally {
      await rm(partial, { force: true });
    }
    return { file: out, bytes, files: held.length };
  } finally {
    for (const h of held) closeSync(h.fd);
  }
}

/**
 * Unpacks a snapshot into `dir`, which must not exist or be empty (a restore never mixes with a
 * store). Only regular files under relative paths are taken; a file that is no svc snapshot is
 * refused before anything is written.
 */
export async function restoreSnapshot(file: string, dir: string): Promise<{ files: number }> {
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
  } catch (e) {
    throw new SvcError('not_found', `cannot read the backup ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const { list: tarList, extract } = await import('tar');
  const entries: Array<{ path: string; type: string }> = [];
  try {
    await tarList({ file, strict: true, onReadEntry: (e) => void entries.push({ path: e.path, type: e.type }) });
  } catch (e) {
    throw new SvcError('invalid_argument', `${file} is not an svc backup (${(e as Error).message})`);
  }
  const bad = entries.find((e) => e.type !== 'File' || e.path.startsWith('/') || e.path.split('/').includes('..'));
  if (bad) throw new SvcError('invalid_argument', `${file} is not an svc backup: it holds ${bad.type} ${bad.path}`);
  if (!entries.some((e) => e.path === DATA_FILE))
    throw new SvcError('invalid_argument', `${file} is not an svc backup: it has no ${DATA_FILE}`);
  const existing = await readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
  if (existing.length) throw new SvcError('conflict', `${dir} is not empty: a backup is restored into a new store`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await extract({ file, cwd: dir, strict: true, preservePaths: false, filter: (_p, e) => 'type' in e && e.type === 'File' });
  return { files: entries.length };
}
