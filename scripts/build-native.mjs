// The install script: builds native/ (flock(2) for the file store's lock, docs/stores.md "Stores") with the
// node-gyp that npm brings. It is optional: where no C compiler is installed, or with
// --ignore-scripts, svc takes the same lock through flock(1) in a child process, which costs a few
// milliseconds more at every command's start. So a failed build warns and the install goes on.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// npm names its own node-gyp to the scripts it runs; outside npm, look beside this Node's npm.
const gyp = [
  process.env.npm_config_node_gyp,
  join(dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js'),
].find((p) => p && existsSync(p));
const warn = (why) =>
  process.stderr.write(`svc: the native store lock was not built (${why}); svc will lock file stores with flock(1) instead\n`);
if (!gyp) warn('node-gyp not found');
else {
  // The headers of the Node that runs this (npm passes its nodedir setting; a Node installed with
  // its headers, as Debian's and the official builds are, has them beside it), so nothing is downloaded.
  const prefix = join(dirname(process.execPath), '..');
  const nodedir = process.env.npm_config_nodedir || (existsSync(join(prefix, 'include/node/node_api.h')) ? prefix : null);
  const args = [gyp, 'rebuild', '--directory', join(root, 'native'), '--loglevel=error', ...(nodedir ? [`--nodedir=${nodedir}`] : [])];
  const r = spawnSync(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    // node-gyp's reason is its first `stack Error:` line (`make` failed, no Python found, ...).
    const reason = /gyp ERR! stack (?:Error: )?(.+)/.exec(r.stderr ?? '')?.[1]?.trim();
    warn(`node-gyp exited ${r.status ?? r.signal}${reason ? `: ${reason}` : ''}`);
  }
}
