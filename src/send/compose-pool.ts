// A pool of compose-and-sign threads (compose-worker.ts). With threads: 0 the work runs inline on
// the caller's event loop (tests of compose itself, one-core machines).
import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OutboundJob, SendContent } from '../store/types.js';
import { compose } from './compose.js';
import { DkimSigner, type SigningDomain } from './dkim.js';

export interface ComposeTask {
  id: number;
  content: SendContent;
  job: OutboundJob;
  recipients: string[];
  baseUrl: string;
  domain: SigningDomain | null;
}

interface Pending {
  resolve: (b: Buffer) => void;
  reject: (e: Error) => void;
}

export class ComposePool {
  #workers: Array<Worker | null> = [];
  #load: number[] = [];
  #pending = new Map<number, Pending & { worker: number }>();
  #nextId = 1;
  #inline = new DkimSigner();

  constructor(threads: number) {
    // Compiled (.js) or run from source by tsx (.ts): the worker is the sibling file of the same
    // kind; from source the thread registers tsx itself (a worker does not inherit the hooks).
    const ext = extname(fileURLToPath(import.meta.url));
    const file = new URL(`./compose-worker${ext}`, import.meta.url);
    const entry = ext === '.ts' ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); });` : file;
    for (let i = 0; i < threads; i++) {
      // Small heaps: a thread holds one message at a time.
      const w = new Worker(entry, { eval: typeof entry === 'string', resourceLimits: { maxYoungGenerationSizeMb: 12, maxOldGenerationSizeMb: 96 } });
      w.on('message', (m: { id: number; raw?: Uint8Array; error?: string }) => {
        const p = this.#pending.get(m.id);
        if (!p) return;
        this.#pending.delete(m.id);
        this.#load[p.worker]!--;
        if (m.raw) p.resolve(Buffer.from(m.raw.buffer, m.raw.byteOffset, m.raw.byteLength));
        else p.reject(new Error(m.error ?? 'compose failed'));
      });
      // A thread that dies is out of the pool; what it held fails (and is retried by delivery),
      // and when no thread is left the work runs inline.
      const dead = (e: Error) => {
        if (this.#workers[i] !== w) return;
        this.#workers[i] = null;
        for (const [id, p] of this.#pending) {
          if (p.worker === i) {
            this.#pending.delete(id);
            p.reject(e);
          }
        }
      };
      w.on('error', dead);
      w.on('exit', (code) => dead(new Error(`compose thread exited (${code})`)));
      w.unref();
      this.#workers.push(w);
      this.#load.push(0);
    }
  }

  /** The signed (when the domain's key is published) message, ready for DATA. */
  async run(task: Omit<ComposeTask, 'id'>): Promise<Buffer> {
    const live = this.#workers.flatMap((w, i) => (w ? [i] : []));
    if (!live.length) {
      const composed = await compose(task.content, task.job, task.recipients, task.baseUrl);
      return task.domain && this.#inline.shouldSign(task.domain) ? this.#inline.sign(composed.raw, task.domain) : composed.raw;
    }
    // The least busy thread takes it.
    let worker = live[0]!;
    for (const i of live) if (this.#load[i]! < this.#load[worker]!) worker = i;
    const id = this.#nextId++;
    this.#load[worker]!++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, worker });
      this.#workers[worker]!.postMessage({ ...task, id });
    });
  }

  async close(): Promise<void> {
    const all = this.#workers;
    this.#workers = [];
    await Promise.all(all.map((w) => w?.terminate()));
  }
}
