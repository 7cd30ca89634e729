// Runs dist/cli.cjs, the admin commands in one CommonJS file (scripts/bundle-cli.mjs), with V8's
// code cache for it, dist/cli.cjs.cache: the compiled code of its functions, so that a command
// does not compile them again at every start (Node 20 caches nothing for ES modules). bin/svc
// uses it; the build runs this file with --write-cache to make the cache.
//
// The bundle is run as Node runs a CommonJS module (its own require, __dirname, module.exports),
// compiled by vm.Script with the cache. Its import()s (packages, the live views) were rewritten by
// the build to __svcImport(), given here: this module's own import(), for which a relative
// specifier is relative to dist/. A cache V8 refuses (another Node, other flags) costs a normal
// compile, nothing else.
import { readFileSync, writeFileSync, renameSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

export const BUNDLE = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
export const CACHE = `${BUNDLE}.cache`;

/** The bundle's exports (main), or null when it is not built (dist/ from tsc alone). */
export function loadBundle() {
  let source;
  try {
    source = readFileSync(BUNDLE, 'utf8');
  } catch {
    return null;
  }
  let cachedData;
  try {
    cachedData = readFileSync(CACHE);
  } catch {
    /* no cache: compiled as usual */
  }
  // Module.wrap's wrapper, with the loader's import() as one more argument (and on the first line,
  // so that line numbers in stack traces are the bundle's own).
  const wrapped = `(function (exports, require, module, __filename, __dirname, __svcImport) { ${source}\n})`;
  const script = new Script(wrapped, { filename: BUNDLE, cachedData });
  const module = { exports: {} };
  const base = pathToFileURL(BUNDLE);
  const load = (specifier) => import(specifier.startsWith('./') ? new URL(specifier, base).href : specifier);
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE), load);
  const codeCache = !cachedData ? 'missing' : script.cachedDataRejected ? 'refused' : 'accepted';
  return { main: module.exports.main, script, start: { entry: 'bundle', code_cache: codeCache } };
}

/**
 * The build's step: runs the commands an operator runs most on a scratch store, in this process,
 * so that the functions they compile are in the cache, and writes it (atomically: a command
 * starting meanwhile reads the old one or the new one).
 */
async function writeCache() {
  rmSync(CACHE, { force: true });
  const bundle = loadBundle();
  if (!bundle) throw new Error(`${BUNDLE} is not built`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-code-cache-'));
  const sink = { write: () => true, isTTY: false, columns: 100 };
  const io = { stdout: sink, stderr: sink, env: { SVC_STORE: `file:${dir}`, SVC_WORKSPACE: 'warm' }, cwd: dir };
  try {
    for (const argv of [
      ['workspaces', 'create', 'warm', '--json'],
      ['keys', 'create', '--json'],
      ['keys', 'list', '--json'],
      ['keys', 'list'],
      ['suppressions', 'add', 'a@warm.test', '--json'],
      ['suppressions', 'list', '--json'],
      ['messages', 'list', '--json'],
      ['messages', 'list'],
      ['domains', 'list', '--json'],
      ['lists', 'list', '--json'],
      ['webhooks', 'list', '--json'],
      ['queue', 'list', '--json'],
      ['--help'],
      ['--version'],
    ]) {
      const code = await bundle.main(argv, io);
      if (code !== 0) throw new Error(`svc ${argv.join(' ')} exited ${code} while making the code cache`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const tmp = `${CACHE}.${process.pid}.tmp`;
  writeFileSync(tmp, bundle.script.createCachedData());
  renameSync(tmp, CACHE);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--write-cache') await writeCache();
