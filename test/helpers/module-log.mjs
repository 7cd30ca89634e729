// Loaded into a child process with `--import` (NODE_OPTIONS): writes the path of every module the
// process loads to the file named by LOADED_MODULES_LOG, one line each, and as it exits the Node
// built-ins it loaded (`node:child_process`). The hooks run on their own thread
// (module.register), so logging never changes what the program itself loads.
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (url.startsWith('file:') && process.env.LOADED_MODULES_LOG) appendFileSync(process.env.LOADED_MODULES_LOG, `${fileURLToPath(url)}\n`);
  return loaded;
}

// On the program's thread: installs this same file as its loader hooks (on the hooks thread it is
// evaluated for its `load` export only).
if (isMainThread) {
  register(import.meta.url);
  process.on('exit', () => {
    if (!process.env.LOADED_MODULES_LOG) return;
    const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ') && !m.includes(' internal/'));
    appendFileSync(process.env.LOADED_MODULES_LOG, builtins.map((m) => `node:${m.slice('NativeModule '.length)}\n`).join(''));
  });
}
