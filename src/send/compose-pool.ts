// A pool of compose-and-sign threads (compose-worker.ts). With threads: 0 the work runs inline on
// the caller's event loop (tests of compose itself, one-core machines).
//
// Pool threads have small heaps: a thread holds one message at a time, and a heap that grew once
// stays grown (peak RSS is a target: docs/benchmarks.md). A large message (the relay takes 25 MB) needs about
// twenty times its size while HTML becomes text and MIME, so it is composed in a thread of its own
// with room for that, ended afterwards. A pool thread that dies (out of memory, a bug) is replaced.
import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PRIORITY, priorityOf, type SendContent } from '../model/message.js';
import { compose, TextCache, type CopyFor } from './compose/index.js';
import { DkimSigner, type SigningDomain } from './dkim.js';
import { COMPOSE_BUDGET_MS, isPoison, PoisonMessage } from './poison.js';

/**
 * Bulk tasks a thread may have queued before more wait in the pool (transactional ones never wait):
 * one, so a transactional task waits for at most the bulk copy its thread is composing (with two,
 * a reset's composing took 2-19 ms during a broadcast's hand-off instead of 1-8; the hand-off rate
 * did not change).
 */
const BULK_AHEAD = 1;

export interface ComposeTask {
  id: number;
  content: SendContent;
  copy: CopyFor;
  /** The key that signs tracked links (broadcasts and sequences). */
  linkKey?: string;
  baseUrl: string;
  domain: SigningDomain | null;
}

export interface ComposePoolOptions {
  threads: number;
  /** Old-generation limit of a pool thread, MB. */
  threadHeapMb?: number;
  /** Contents longer than this (HTML plus text, characters) get a thread of their own. */
  aloneAbove?: number;
  /** Old-generation limit of such a thread, MB. */
  aloneHeapMb?: number;
  /** Wait before a dead pool thread is replaced, ms (a thread that cannot start must not spin). */
  respawnMs?: number;
  /** Time one message may take in a thread; past it the thread is ended and the message is poison. */
  budgetMs?: number;
  /**
   * Large messages composed at once, each in its own thread: one 25 MB message needs about 500 MB
   * while it is composed, so they take turns rather than run the daemon out of memory together.
   */
  aloneAtOnce?: number;
}

interface Pending {
  resolve: (b: Buffer) => void;
  reject: (e: Error) => void;
  worker: number;
  timer: NodeJS.Timeout;
}

type Reply = { id: number; raw?: Uint8Array; error?: string; poison?: boolean };

/**
 * What a content weighs in a thread, in characters: its HTML and text, or the relayed message it is
 * read from (base64: four characters for three bytes, about what its decoded parts take as text).
 */
const contentSize = (c: SendContent) => (c.html?.length ?? 0) + (c.text?.length ?? 0) + (c.raw?.length ?? 0);

/** A compose thread: compiled (.js) or run from source by tsx (.ts), the sibling file of the same kind. */
function composeThread(heapMb: number): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const file = new URL(`./compose-worker${ext}`, import.meta.url);
  // From source the thread registers tsx itself (a worker does not inherit the hooks).
  const entry =
    ext === '.ts' ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); });` : file;
  return new Worker(entry, {
    eval: typeof entry === 'string',
    resourceLimits: { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: heapMb },
  });
}

/** The message of a task, signed when the domain's key is published: what a thread or the inline path returns. */
export async function composeSigned(task: Omit<ComposeTask, 'id'>, signer: DkimSigner, texts?: TextCache): Promise<Buffer> {
  try {
    const composed = await compose(task.content, task.copy, task.baseUrl, task.linkKey, texts);
    // Signed last, over the headers the steps added too.
    return task.domain && signer.shouldSign(task.domain) ? signer.sign(composed.raw, task.domain, composed.headers) : composed.raw;
  } catch (e) {
    // A recursion that overflowed overflows on every attempt.
    if (isPoison(e) && !(e instanceof PoisonMessage)) throw new PoisonMessage(`its HTML is too deeply nested (${(e as Error).message})`);
    throw e;
  }
}

/** The pool was closed (the daemon is stopping) with this task unfinished: nothing happened to it. */
export class ComposeAborted extends Error {
  constructor() {
    super('composing was stopped (shutdown)');
    this.name = 'ComposeAborted';
  }
}

const replyError = (m: Reply) =>
  m.poison ? new PoisonMessage((m.error ?? '').replace(/^message could not be composed: /, '')) : new Error(m.error ?? 'compose failed');

const toBuffer = (raw: Uint8Array) => Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

export class ComposePool {
  #workers: Array<Worker | null> = [];
  #load: number[] = [];
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #inline = new DkimSigner();
  /** Texts made on the event loop (threads: 0): shared by a send's copies as in a thread. */
  #inlineTexts = new TextCache();
  #closed = false;
  #respawns = new Set<NodeJS.Timeout>();
  #alone = new Set<Worker>();
  /** Bulk tasks waiting for the threads' queues to shorten, in order. */
  #bulkWaiting: Array<() => void> = [];
  readonly #opts: Required<ComposePoolOptions>;

  constructor(opts: ComposePoolOptions | number) {
    this.#opts = {
      threadHeapMb: 64,
      aloneAbove: 512 * 1024,
      aloneHeapMb: 2048,
      respawnMs: 1000,
      budgetMs: COMPOSE_BUDGET_MS,
      aloneAtOnce: 1,
      ...(typeof opts === 'number' ? { threads: opts } : opts),
    };
    for (let i = 0; i < this.#opts.threads; i++) {
      this.#workers.push(null);
      this.#load.push(0);
      this.#spawn(i);
    }
  }

  /** Large messages being composed now, each in a thread of its own. */
  get aloneThreads(): number {
    return this.#alone.size;
  }

  /** Pool threads alive now. */
  get liveThreads(): number {
    return this.#workers.filter(Boolean).length;
  }

  /** The signed (when the domain's key is published) message, ready for DATA. */
  async run(task: Omit<ComposeTask, 'id'>): Promise<Buffer> {
    if (this.#closed) throw new ComposeAborted();
    if (contentSize(task.content) > this.#opts.aloneAbove) return this.#runAlone(task);
    // Bulk copies (broadcasts, sequences) wait here while the threads have BULK_AHEAD tasks each;
    // other mail goes straight to a thread, so it never queues behind a broadcast's copies there.
    if (priorityOf(task.content.source) !== PRIORITY.transactional) {
      while (!this.#closed && this.#load.reduce((a, b) => a + b, 0) >= Math.max(1, this.#workers.filter(Boolean).length) * BULK_AHEAD) {
        await new Promise<void>((r) => this.#bulkWaiting.push(r));
      }
      if (this.#closed) throw new ComposeAborted();
    }
    const live = this.#workers.flatMap((w, i) => (w ? [i] : []));
    if (!live.length) return composeSigned(task, this.#inline, this.#inlineTexts);
    // The least busy thread takes it.
    let worker = live[0]!;
    for (const i of live) if (this.#load[i]! < this.#load[worker]!) worker = i;
    const id = this.#nextId++;
    // A thread with work keeps the process alive; an idle one does not.
    if (this.#load[worker]!++ === 0) this.#workers[worker]!.ref();
    const w = this.#workers[worker]!;
    return new Promise((resolve, reject) => {
      // Over its budget the message is poison, and the thread, busy with it for who knows how much
      // longer, is ended (its other tasks fail as temporary and are tried again; a new one comes).
      const timer = this.#budget(() => {
        if (!this.#pending.delete(id)) return;
        reject(this.#overBudget());
        void w.terminate();
      });
      this.#pending.set(id, { resolve, reject, worker, timer });
      w.postMessage({ ...task, id });
    });
  }

  /** A message's time in a thread (COMPOSE_BUDGET_MS); past it, `over` runs. Never keeps the process up. */
  #budget(over: () => void): NodeJS.Timeout {
    const t = setTimeout(over, this.#opts.budgetMs);
    t.unref();
    return t;
  }

  #overBudget(): PoisonMessage {
    return new PoisonMessage(`composing took longer than ${Math.round(this.#opts.budgetMs / 1000)} s`);
  }

  /** Ends every thread at once; what they held fails with ComposeAborted (nothing was sent). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#bulkWaiting.splice(0)) wake();
    // Each waiter, woken in turn, finds the pool closed and gives up.
    this.#aloneQueue.shift()?.();
    for (const [id, p] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new ComposeAborted());
    }
    for (const t of this.#respawns) clearTimeout(t);
    const all = [...this.#workers, ...this.#alone];
    this.#workers = [];
    await Promise.all(all.map((w) => w?.terminate()));
  }

  #spawn(i: number): void {
    const w = composeThread(this.#opts.threadHeapMb);
    w.on('message', (m: Reply) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      clearTimeout(p.timer);
      if (--this.#load[p.worker]! === 0) w.unref();
      this.#bulkWaiting.shift()?.();
      if (m.raw) p.resolve(toBuffer(m.raw));
      else p.reject(replyError(m));
    });
    // What a dead thread held fails (and is retried by delivery); a new thread takes its place,
    // and until one is up its share runs on the others, or inline when none is left.
    const dead = (e: Error) => {
      if (this.#workers[i] !== w) return;
      this.#workers[i] = null;
      for (const [id, p] of this.#pending) {
        if (p.worker === i) {
          this.#pending.delete(id);
          clearTimeout(p.timer);
          p.reject(e);
        }
      }
      this.#load[i] = 0;
      for (const wake of this.#bulkWaiting.splice(0)) wake();
      if (this.#closed) return;
      const t = setTimeout(() => {
        this.#respawns.delete(t);
        if (!this.#closed) this.#spawn(i);
      }, this.#opts.respawnMs);
      t.unref();
      this.#respawns.add(t);
    };
    w.on('error', dead);
    w.on('exit', (code) => dead(new Error(`compose thread exited (${code})`)));
    w.unref();
    this.#workers[i] = w;
  }

  /** Large messages composing now, and those waiting for their turn (aloneAtOnce). */
  #aloneRunning = 0;
  #aloneQueue: Array<() => void> = [];

  /** One large message in a thread of its own, ended when it is done; they take turns. */
  async #runAlone(task: Omit<ComposeTask, 'id'>): Promise<Buffer> {
    // A finished one hands its turn straight to the next in line.
    if (this.#aloneRunning >= this.#opts.aloneAtOnce) await new Promise<void>((r) => this.#aloneQueue.push(r));
    else this.#aloneRunning++;
    try {
      if (this.#closed) throw new ComposeAborted();
      return await this.#composeAlone(task);
    } finally {
      const next = this.#aloneQueue.shift();
      if (next) next();
      else this.#aloneRunning--;
    }
  }

  #composeAlone(task: Omit<ComposeTask, 'id'>): Promise<Buffer> {
    const w = composeThread(this.#opts.aloneHeapMb);
    this.#alone.add(w);
    let timer: NodeJS.Timeout | undefined;
    return new Promise<Buffer>((resolve, reject) => {
      timer = this.#budget(() => reject(this.#overBudget()));
      w.once('message', (m: Reply) => (m.raw ? resolve(toBuffer(m.raw)) : reject(replyError(m))));
      w.once('error', reject);
      w.once('exit', (code) => reject(this.#closed ? new ComposeAborted() : new Error(`compose thread exited (${code})`)));
      w.postMessage({ ...task, id: 0 });
    }).finally(() => {
      clearTimeout(timer);
      this.#alone.delete(w);
      void w.terminate();
    });
  }
}
