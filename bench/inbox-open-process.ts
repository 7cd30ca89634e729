// Opens a file store in a fresh process and prints what the open cost: `open_ms N heap_bytes N`
// (heap used plus the typed arrays' buffers, which live outside the heap, after a full collection,
// with the store open). Run with --expose-gc.
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

const dir = process.argv[2]!;
const gc = (globalThis as { gc?: () => void }).gc!;
const used = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
gc();
const before = used();
const t0 = performance.now();
const store = await SqliteStore.open(dir, 'admin');
const openMs = performance.now() - t0;
gc();
const after = used();
process.stdout.write(`open_ms ${Math.round(openMs)} heap_bytes ${after - before}\n`);
await store.close();
