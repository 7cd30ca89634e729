// The daemon's SQLite connection, in a thread of its own (writer.ts starts it): statements run here
// in the order they come, so that a commit's fsync and a statement's work never block the daemon's
// event loop. It speaks the protocol of writer.ts: a statement in, its rows or changes out.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
const raw = new Database(path);
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = FULL');
raw.pragma('foreign_keys = ON');
raw.pragma(`busy_timeout = ${busyTimeoutMs}`);

const prepared = new Map<string, Database.Statement>();
const statement = (text: string): Database.Statement => {
  let s = prepared.get(text);
  if (!s) {
    // IN lists of every length make new texts: the cache is emptied rather than let grow.
    if (prepared.size >= 1_000) prepared.clear();
    s = raw.prepare(text);
    prepared.set(text, s);
  }
  return s;
};

export interface WriterRequest {
  id: number;
  /** Statements run in order; the reply is the last one's (an earlier one's failure stops the rest). */
  statements: Array<{ sql: string; params: unknown[] }>;
}
export interface WriterReply {
  id: number;
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  error?: { message: string; code?: string };
}

parentPort!.on('message', (m: WriterRequest | { close: true }) => {
  if ('close' in m) {
    raw.close();
    parentPort!.close();
    return;
  }
  const reply: WriterReply = { id: m.id };
  try {
    for (const { sql, params } of m.statements) {
      delete reply.rows;
      // A transaction takes the write lock at its start (see database.ts); a rollback after a
      // commit that failed (a full disk rolls back by itself) has nothing to roll back.
      const text = sql === 'begin' ? 'begin immediate' : sql;
      if (text === 'rollback' && !raw.inTransaction) reply.changes = 0;
      else {
        const s = statement(text);
        if (s.reader) reply.rows = s.all(params);
        else {
          const r = s.run(params);
          reply.changes = r.changes;
          reply.lastInsertRowid = r.lastInsertRowid;
        }
      }
    }
  } catch (e) {
    const err = e as { message?: string; code?: string };
    reply.error = { message: err.message ?? String(e), ...(err.code ? { code: err.code } : {}) };
  }
  parentPort!.postMessage(reply);
});
