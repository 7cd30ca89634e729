// `svc store check` for the embedded store: svc.json read and its shape checked, and svc.db asked
// by SQLite itself (PRAGMA integrity_check, foreign_key_check) and its schema version. Read-only:
// it runs beside the daemon (WAL lets it read while the daemon writes) and changes nothing.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DATA_FILE } from '../location.js';
import { dataFileProblem } from '../file/shapes.js';
import { DB_FILE, schemaVersion } from './database.js';

export interface StoreProblem {
  file: string;
  /**
   * `data_file`: svc.json cannot be read (the store does not open); `database`: SQLite reports svc.db
   * damaged (integrity_check) or a row pointing at none (foreign_key_check); `schema`: svc.db's
   * schema is not the one this svc writes.
   */
  kind: 'data_file' | 'database' | 'schema';
  reason: string;
}

export interface StoreReport {
  store: string;
  ok: boolean;
  problems: StoreProblem[];
}

/** At most this many of SQLite's own findings are reported (it stops at 100 itself). */
const MAX_FINDINGS = 100;

export async function checkStore(dir: string): Promise<StoreReport> {
  const problems: StoreProblem[] = [];
  try {
    const why = dataFileProblem(JSON.parse(await readFile(join(dir, DATA_FILE), 'utf8')));
    if (why) problems.push({ file: DATA_FILE, kind: 'data_file', reason: why });
  } catch (e) {
    problems.push({ file: DATA_FILE, kind: 'data_file', reason: (e as Error).message });
  }
  if (existsSync(join(dir, DB_FILE))) {
    let db: Database.Database | null = null;
    try {
      db = new Database(join(dir, DB_FILE), { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      const found = (db.pragma(`integrity_check(${MAX_FINDINGS})`) as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
      if (!(found.length === 1 && found[0] === 'ok'))
        for (const reason of found) problems.push({ file: DB_FILE, kind: 'database', reason });
      for (const r of (db.pragma('foreign_key_check') as Array<{ table: string; rowid: number; parent: string }>).slice(0, MAX_FINDINGS))
        problems.push({ file: DB_FILE, kind: 'database', reason: `${r.table} row ${r.rowid} points at no ${r.parent}` });
      const { have, want } = schemaVersion(db);
      if (have !== want) problems.push({ file: DB_FILE, kind: 'schema', reason: `schema version ${have}, this svc writes ${want}` });
    } catch (e) {
      problems.push({ file: DB_FILE, kind: 'database', reason: (e as Error).message });
    } finally {
      db?.close();
    }
  }
  return { store: `file:${dir}`, ok: problems.length === 0, problems };
}
