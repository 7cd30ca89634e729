// A compose-and-sign thread: the CPU-heavy part of a hand-off (HTML to text, MIME, DKIM) runs here,
// off the daemon's event loop, on the machine's other cores.
import { parentPort } from 'node:worker_threads';
import { DkimSigner } from './dkim.js';
import { composeSigned, type ComposeTask } from './compose-pool.js';
import { isPoison } from './poison.js';

const signer = new DkimSigner();

parentPort!.on('message', async (task: ComposeTask) => {
  try {
    const raw = await composeSigned(task, signer);
    // Copied into a buffer of its own so that it can be handed over without another copy.
    const out = new Uint8Array(raw.length);
    out.set(raw);
    parentPort!.postMessage({ id: task.id, raw: out }, [out.buffer]);
  } catch (e) {
    parentPort!.postMessage({ id: task.id, error: (e as Error).message, poison: isPoison(e) });
  }
});
