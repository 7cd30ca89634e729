// A Kysely dialect whose one connection is SQLite in a thread of its own (writer-thread.ts): the
// daemon's. Kysely's own SQLite driver runs each statement on the calling thread, so a commit's
// fsync (a few milliseconds for a batch of sends) would stop every request meanwhile; here the
// event loop goes on while the thread works. Statements keep their order (one connection, taken in
// turns, as Kysely's SQLite driver takes its own); admin commands, which start and stop in
// milliseconds, use Kysely's driver on their own thread (database.ts).
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from '#kysely';
import type { WriterReply, WriterRequest } from './writer-thread.js';
import { DEFERRED } from '../sql/db.js';

/** The writer thread: compiled (.js) or run from source by tsx (.ts), the sibling file of the same kind. */
function writerThread(path: string, busyTimeoutMs: number): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const file = new URL(`./writer-thread${ext}`, import.meta.url);
  // From source the thread registers tsx itself (a worker does not inherit the hooks).
  const entry =
    ext === '.ts' ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); });` : file;
  return new Worker(entry, { eval: typeof entry === 'string', workerData: { path, busyTimeoutMs } });
}

class WriterConnection implements DatabaseConnection {
  #next = 0;
  /** Statements waiting to go with the next one that is read (a transaction's BEGIN among them). */
  #held: Array<{ sql: string; params: unknown[] }> = [];
  readonly #waiting = new Map<number, { resolve: (r: WriterReply) => void; reject: (e: Error) => void }>();

  constructor(readonly worker: Worker) {
    worker.on('message', (r: WriterReply) => {
      const w = this.#waiting.get(r.id);
      this.#waiting.delete(r.id);
      w?.resolve(r);
    });
    // The thread died (out of memory, a crash in SQLite): every statement in flight fails.
    const fail = (e: Error) => {
      for (const w of this.#waiting.values()) w.reject(e);
      this.#waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(Object.assign(new Error(`the SQLite thread stopped (exit ${code})`), { code: 'SQLITE_CANTOPEN' })));
  }

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const params = q.parameters as unknown[];
    // A deferred write (sql/db.ts) and a transaction's BEGIN go with the next statement that is read.
    if (q.sql === 'begin' || q.sql.startsWith(DEFERRED)) {
      this.#held.push({ sql: q.sql, params });
      return { rows: [] };
    }
    // A rollback of statements never sent: they are dropped.
    if (q.sql === 'rollback' && this.#held.length && this.#held[0]!.sql === 'begin') {
      this.#held = [];
      return { rows: [] };
    }
    const statements = [...this.#held, { sql: q.sql, params }];
    this.#held = [];
    const id = this.#next++;
    const r = await new Promise<WriterReply>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, statements } satisfies WriterRequest);
    });
    if (r.error) throw Object.assign(new Error(r.error.message), r.error.code ? { code: r.error.code } : {});
    if (r.rows) return { rows: r.rows as R[] };
    return {
      rows: [],
      numAffectedRows: BigInt(r.changes ?? 0),
      ...(r.lastInsertRowid !== undefined ? { insertId: BigInt(r.lastInsertRowid) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('the SQLite thread does not stream');
  }
}

class WriterDriver implements Driver {
  #connection: WriterConnection | null = null;
  #turn: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {}

  async init(): Promise<void> {
    this.#connection = new WriterConnection(writerThread(this.path, this.busyTimeoutMs));
  }

  // One connection, taken in turns: a transaction's statements are never interleaved with others.
  async acquireConnection(): Promise<DatabaseConnection> {
    const before = this.#turn;
    let release!: () => void;
    this.#turn = new Promise<void>((r) => (release = r));
    await before;
    this.#release = release;
    return this.#connection!;
  }

  async beginTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  async destroy(): Promise<void> {
    const worker = this.#connection?.worker;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage({ close: true });
    });
  }
}

/** SQLite through the writer thread, for Kysely. */
export function writerDialect(path: string, busyTimeoutMs: number): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new WriterDriver(path, busyTimeoutMs),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
