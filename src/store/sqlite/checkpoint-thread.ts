// The daemon's SQLite checkpoints, in a thread of their own (the writer thread starts it, with
// SQLite's automatic checkpoint off): what the writer committed to the write-ahead log is copied
// into svc.db here, a few times a second, while the writer goes on committing. A PASSIVE checkpoint
// takes no lock the writer waits on, and the log starts over once all of it is copied. Should the
// log pass LIMIT_PAGES all the same (the disk slower than the writes), a RESTART checkpoint makes
// the writer wait until it is copied: the log never grows without bound.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { path, busyTimeoutMs } = workerData as { path: string; busyTimeoutMs: number };
/** 64 MB of 4 KB pages. */
const LIMIT_PAGES = 16_384;
const EVERY_MS = 100;

const raw = new Database(path);
raw.pragma(`busy_timeout = ${busyTimeoutMs}`);
// A checkpoint syncs svc.db before the log may start over.
raw.pragma('synchronous = FULL');

let timer: NodeJS.Timeout;
const tick = () => {
  try {
    const [r] = raw.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
    if (r && r.log > LIMIT_PAGES) raw.pragma('wal_checkpoint(RESTART)');
  } catch {
    // Busy, or the disk full: the log keeps what it holds (every commit in it is durable) and the
    // next tick tries again.
  }
  timer = setTimeout(tick, EVERY_MS);
};
timer = setTimeout(tick, EVERY_MS);

parentPort!.once('message', () => {
  clearTimeout(timer);
  raw.close();
  parentPort!.close();
});
