// SQLite failures in the service's terms: a full disk, a failed write or a database another
// process keeps locked past the busy timeout is store_unavailable (503, 451 4.3.0: retry, nothing
// was kept); a constraint is the conflict it stands for; the rest is internal.
import { SvcError } from '../../errors.js';

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL|NOLFS)/;

export function mapSqliteError(e: unknown): SvcError {
  if (e instanceof SvcError) return e;
  const err = e as { code?: string; message?: string };
  const code = err.code ?? '';
  if (UNAVAILABLE.test(code)) {
    const why = code === 'SQLITE_FULL' ? 'the disk is full' : code.startsWith('SQLITE_BUSY') ? 'the database is busy' : err.message;
    return new SvcError('store_unavailable', `store unavailable: ${why}; nothing was kept`, { cause: e });
  }
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT'))
    return new SvcError(
      'store_corrupt',
      `svc.db cannot be read: ${err.message ?? code} (svc store check says more; svc restore brings a backup back)`,
      {
        cause: e,
      },
    );
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return new SvcError('conflict', `already exists (${err.message ?? 'unique'})`, { cause: e });
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return new SvcError('not_found', 'referenced record not found', { cause: e });
  return new SvcError('internal', `sqlite: ${err.message ?? String(e)}`, { cause: e });
}
