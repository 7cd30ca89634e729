// tsc compiles TypeScript only; the SQL migrations, data files (src/tracking/sources.json) and the
// web app's script (daemon/http/app/assets/app.js) are read at run time beside the compiled code.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const walk = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const copied = [
  ...walk(join(root, 'src')).filter((f) => f.endsWith('.sql') || f.endsWith('.json')),
  ...walk(join(root, 'daemon/http/app/assets')),
];
for (const file of copied) cpSync(file, join(root, 'dist', relative(root, file)));

// What `svc version` says of this build: the commit it was built from (when built in a git
// checkout) and when.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
let commit = null;
try {
  commit =
    execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim() || null;
} catch {
  /* not a git checkout (an unpacked package): no commit to name */
}
writeFileSync(join(root, 'dist', 'build.json'), JSON.stringify({ commit, built_at: new Date().toISOString() }) + '\n');
