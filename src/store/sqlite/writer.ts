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
import { SvcError } from '../../errors.js';
import { DEFERRED } from '../sql/db.js';
import { Refused } from '../sql/messages.js';

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
    const r = await this.post({ statements });
    if (r.rows) return { rows: r.rows as R[] };
    return {
      rows: [],
      numAffectedRows: BigInt(r.changes ?? 0),
      ...(r.lastInsertRowid !== undefined ? { insertId: BigInt(r.lastInsertRowid) } : {}),
    };
  }

  /** Sends `work` to the thread; its reply, or its failure as the thread described it. */
  async post(work: DistributiveOmit<WriterRequest, 'id'>): Promise<WriterReply> {
    const id = this.#next++;
    const r = await new Promise<WriterReply>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...work } as WriterRequest);
    });
    if (r.error) throw rebuilt(r.error);
    return r;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('the SQLite thread does not stream');
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A failure of the thread as this side throws it: a refusal and the store's kinds as themselves. */
function rebuilt(e: NonNullable<WriterReply['error']>): Error {
  if (e.refusal) return new Refused(e.refusal);
  if (e.kind) return new SvcError(e.kind, e.message);
  return Object.assign(new Error(e.message), e.code ? { code: e.code } : {});
}

class WriterDriver implements Driver {
  #connection: WriterConnection | null = null;
  #turn: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
  ) {}

  // Kysely starts the thread at its first query; a procedure before any query starts it likewise.
  async init(): Promise<void> {
    this.#connection ??= new WriterConnection(writerThread(this.path, this.busyTimeoutMs));
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

  /**
   * Runs a procedure in the thread. It waits for its turn on the connection (never inside another
   * transaction's statements) but gives the turn back once sent: the thread takes work in order, so
   * what comes after it queues there meanwhile instead of waiting for the answer here.
   */
  async procedure(name: string, args: unknown): Promise<unknown> {
    await this.init();
    const c = (await this.acquireConnection()) as WriterConnection;
    let reply: Promise<WriterReply>;
    try {
      reply = c.post({ procedure: name, args });
    } finally {
      await this.releaseConnection();
    }
    return (await reply).result;
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

  // Kysely stops only a driver it started itself: close() stops this one in any case (database.ts).
  async destroy(): Promise<void> {
    const worker = this.#connection?.worker;
    this.#connection = null;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage({ close: true });
    });
  }
}

/** SQLite through the writer thread, for Kysely; and its procedures (sql/procedures.ts), run there. */
export function writerDialect(
  path: string,
  busyTimeoutMs: number,
): { dialect: Dialect; procedure: WriterDriver['procedure']; stop(): Promise<void> } {
  const driver = new WriterDriver(path, busyTimeoutMs);
  return {
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
    procedure: (name, args) => driver.procedure(name, args),
    stop: () => driver.destroy(),
  };
}
