// The daemon's SQLite connection, in a thread of its own (writer.ts starts it): work runs here in
// the order it comes, so that a commit's fsync and a statement's work never block the daemon's
// event loop. It speaks the protocol of writer.ts: statements in, the last one's rows or changes
// out; or a procedure (sql/procedures.ts) by name, its whole transaction run here, its answer out.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { SvcError } from '../../errors.js';
import type { AcceptRefusal } from '../../model/refusal.js';
import { Refused } from '../sql/messages.js';
import { procedures } from '../sql/procedures.js';
import { preparer, threadDb } from './database.js';

const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
const raw = new Database(path);
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = FULL');
raw.pragma('foreign_keys = ON');
raw.pragma(`busy_timeout = ${busyTimeoutMs}`);
// Procedures and the statements sent one by one share the connection and its prepared statements.
const prepare = preparer(raw);
const db = threadDb(raw, prepare);

export type WriterRequest =
  | {
      id: number;
      /** Statements run in order; the reply is the last one's (an earlier one's failure stops the rest). */
      statements: Array<{ sql: string; params: unknown[] }>;
    }
  | { id: number; procedure: string; args: unknown };

export interface WriterReply {
  id: number;
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  /** A procedure's answer. */
  result?: unknown;
  error?: { message: string; code?: string; kind?: SvcError['kind']; refusal?: AcceptRefusal };
}

function statements(m: Extract<WriterRequest, { statements: unknown }>, reply: WriterReply): void {
  for (const { sql, params } of m.statements) {
    delete reply.rows;
    const s = prepare(sql);
    if (s.reader) reply.rows = s.all(params);
    else {
      const r = s.run(params);
      reply.changes = r.changes;
      reply.lastInsertRowid = r.lastInsertRowid;
    }
  }
}

/** A failure as it crosses back: a refusal as itself, the store's errors as their kind (the thread's db maps them). */
function failure(e: unknown): NonNullable<WriterReply['error']> {
  const cause = e instanceof SvcError ? e.cause : e;
  if (cause instanceof Refused) return { message: cause.message, refusal: cause.refusal };
  const err = e as { message?: string; code?: string };
  return {
    message: err.message ?? String(e),
    ...(err.code ? { code: err.code } : {}),
    ...(e instanceof SvcError ? { kind: e.kind } : {}),
  };
}

async function handle(m: WriterRequest): Promise<WriterReply> {
  const reply: WriterReply = { id: m.id };
  try {
    if ('statements' in m) statements(m, reply);
    else {
      const p = procedures.get(m.procedure);
      if (!p) throw new Error(`no procedure ${m.procedure}`);
      reply.result = await p.run(db, m.args as never);
    }
  } catch (e) {
    reply.error = failure(e);
  }
  return reply;
}

// One piece of work at a time, in order: a procedure's transaction is never interleaved with
// statements that came after it.
let turn: Promise<void> = Promise.resolve();
parentPort!.on('message', (m: WriterRequest | { close: true }) => {
  if ('close' in m) {
    turn = turn.then(() => {
      raw.close();
      parentPort!.close();
    });
    return;
  }
  turn = turn.then(async () => parentPort!.postMessage(await handle(m)));
});
