// Whole-message parses of the MX (bounce and complaint reports) in a thread of their own, so a
// report, however it was built, never holds the event loop the relay, the API and the other MX
// sessions share: five 23 MB reports parsed on it took the daemon from 148 MB to 1.4 GB and
// stalled every listener. The thread has a small heap and a time budget per message; past either,
// it is ended (a new one starts for the next) and the message is kept as received, unparsed.
import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Email } from 'postal-mime';
import { parseWhole, type Head } from './parse.js';

export type Parse = (raw: Buffer, head: Head) => Promise<{ email: Email | null; problem: string | null }>;

const BUDGET_MS = 10_000;
const HEAP_MB = 128;

function parseThread(): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const file = new URL(`./parse-worker${ext}`, import.meta.url);
  // From source the thread registers tsx itself (a worker does not inherit the hooks).
  const entry =
    ext === '.ts' ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(file.href)}); });` : file;
  const w = new Worker(entry, {
    eval: typeof entry === 'string',
    resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: HEAP_MB },
  });
  w.unref();
  return w;
}

/** A parser that runs in one thread (started on first use), one message at a time, in order. */
export function threadParser(opts: { budgetMs?: number } = {}): { parse: Parse; close(): Promise<void> } {
  let worker: Worker | null = null;
  let nextId = 1;
  let chain: Promise<unknown> = Promise.resolve();
  let closed = false;
  const one = (raw: Buffer, head: Head): Promise<{ email: Email | null; problem: string | null }> => {
    // A message over the limits is never parsed: answered here, no thread needed.
    if (head.problem || closed) return parseWhole(raw, head);
    const w = (worker ??= parseThread());
    const id = nextId++;
    return new Promise((resolve) => {
      const done = (r: { email: Email | null; problem: string | null }) => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('exit', onExit);
        w.unref();
        resolve(r);
      };
      const lost = (why: string) => {
        if (worker === w) worker = null;
        void w.terminate();
        done({ email: null, problem: `not parsed (${why}); kept as received` });
      };
      const budget = opts.budgetMs ?? BUDGET_MS;
      const timer = setTimeout(() => lost(`took more than ${budget >= 1000 ? `${Math.round(budget / 1000)} s` : `${budget} ms`}`), budget);
      const onMessage = (m: { id: number; email: Email | null; problem: string | null }) => {
        if (m.id === id) done({ email: m.email, problem: m.problem });
      };
      const onExit = () => lost('the parser ran out of memory');
      w.on('message', onMessage);
      w.once('exit', onExit);
      w.ref();
      const copy = new Uint8Array(raw.length);
      copy.set(raw);
      w.postMessage({ id, raw: copy }, [copy.buffer]);
    });
  };
  return {
    parse: (raw, head) => {
      const next = chain.then(() => one(raw, head));
      chain = next.catch(() => {});
      return next;
    },
    async close() {
      closed = true;
      await chain;
      const w = worker;
      worker = null;
      await w?.terminate();
    },
  };
}
