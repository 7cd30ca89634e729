// A thread that parses received reports for the MX (parse-thread.ts): postal-mime's whole-message
// parse, within parse.ts's limits, off the daemon's event loop.
import { parentPort } from 'node:worker_threads';
import { parseWhole, readHead } from './parse.js';

parentPort!.on('message', async (task: { id: number; raw: Uint8Array }) => {
  const raw = Buffer.from(task.raw.buffer, task.raw.byteOffset, task.raw.byteLength);
  const r = await parseWhole(raw, readHead(raw));
  parentPort!.postMessage({ id: task.id, ...r });
});
