// A compose-and-sign thread: the CPU-heavy part of a hand-off (HTML to text, MIME, DKIM) runs here,
// off the daemon's event loop, on the machine's other cores.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { DkimSigner } from './dkim.js';
import { composeSigned, type ComposeTask } from './compose-pool.js';
import { TextCache } from './compose/index.js';
import { isPoison } from './poison.js';

const signer = new DkimSigner();
/** This thread's texts made from HTML: a broadcast's copies composed here share one per content. */
const texts = new TextCache();

/**
 * Composing yields to the daemon's event loop: this thread runs at a lower priority (nice
 * COMPOSE_NICE), so on a busy machine the work that answers clients and hands mail off (the API,
 * the relay, SMTP sessions, the store) goes first, and a password reset is not slowed by a
 * broadcast's copies being composed on every core (docs/lists-and-campaigns.md "Broadcasts and sequences"). Linux sets
 * a nice value per thread, by its id (/proc/thread-self); elsewhere, or if refused, it stays as is.
 */
const COMPOSE_NICE = 10;
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.max(getPriority(tid), COMPOSE_NICE));
} catch {
  /* not Linux, or not allowed: composing keeps the process's priority */
}

parentPort!.on('message', async (task: ComposeTask) => {
  try {
    const raw = await composeSigned(task, signer, texts);
    // Copied into a buffer of its own so that it can be handed over without another copy.
    const out = new Uint8Array(raw.length);
    out.set(raw);
    parentPort!.postMessage({ id: task.id, raw: out }, [out.buffer]);
  } catch (e) {
    parentPort!.postMessage({ id: task.id, error: (e as Error).message, poison: isPoison(e) });
  }
});
