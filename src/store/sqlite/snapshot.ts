// The embedded store's snapshot, taken while the daemon runs (`svc backup`), and its restore into a
// new directory (`svc restore`). The snapshot is a tar file (`tar -tf` lists it) of svc.json and
// svc.db as they were at one instant: the document serialised and the database copied by SQLite's
// VACUUM INTO in the same synchronous step, so nothing written in between can make them disagree.
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { chmod, link, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { SvcError } from '../../errors.js';
import type { Snapshot } from '../port/backup.js';
import { DATA_FILE } from '../location.js';
import { DB_FILE } from './database.js';

export async function takeSnapshot(raw: Database.Database, doc: () => string, out: string): Promise<Snapshot> {
  if (existsSync(out)) throw new SvcError('conflict', `cannot write ${out}: EEXIST (a backup never replaces a file)`);
  let work: string;
  try {
    work = mkdtempSync(join(dirname(out), '.svc-backup-'));
  } catch (e) {
    throw new SvcError('not_found', `cannot write ${out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    // The instant: the document's text and the database's copy, with nothing run in between.
    const text = doc();
    raw.prepare('VACUUM INTO ?').run(join(work, DB_FILE));
    await writeFile(join(work, DATA_FILE), text, { mode: 0o600 });
    // What belonged to the running daemons is not the snapshot's: their leases (a restored store's
    // jobs are free to hold or retry) and their reports (no daemon runs on the copy yet).
    const copy = new Database(join(work, DB_FILE));
    try {
      copy.exec(`UPDATE outbound_jobs SET lease_owner = NULL, lease_until = NULL;
                 UPDATE webhook_jobs SET lease_owner = NULL, lease_until = NULL;
                 UPDATE enrolments SET lease_owner = NULL, lease_until = NULL;
                 DELETE FROM daemon_status;`);
    } finally {
      copy.close();
    }
    const partial = `${out}.partial`;
    // tar is loaded for a backup or a restore only, not by every command that opens a store.
    const { create } = await import('tar');
    await create({ file: partial, cwd: work, portable: true }, [DATA_FILE, DB_FILE]);
    // It holds keys: private, as the store is.
    await chmod(partial, 0o600);
    // Linked, not renamed: a file that appeared at `out` meanwhile is never replaced.
    try {
      await link(partial, out);
    } catch (e) {
      throw new SvcError('conflict', `cannot write ${out}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    } finally {
      await rm(partial, { force: true });
    }
    return { file: out, bytes: statSync(out).size, files: 2 };
  } finally {
    await rm(work, { recursive: true, force: true });
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
