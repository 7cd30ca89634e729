// The second Node of CI (SVC_TEST_NODE, scripts/test.mjs) runs the tests with better-sqlite3 built
// for it: a native module is built for one Node's ABI, and npm ci built ours for the first. .ci/run
// builds a copy for the second into SVC_TEST_SQLITE/node_modules/better-sqlite3 (with `bindings`
// beside it), and this hook, given to that Node and to its children and threads through
// NODE_OPTIONS, resolves `better-sqlite3` there.
import { register } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.SVC_TEST_SQLITE;
if (dir) {
  const target = pathToFileURL(join(dir, 'node_modules/better-sqlite3/lib/index.js')).href;
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier === 'better-sqlite3') return { url: ${JSON.stringify(target)}, format: 'commonjs', shortCircuit: true };
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}
