// tsc compiles TypeScript only; the SQL migrations and data files (src/tracking/sources.json) are
// read at run time beside the compiled code.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const walk = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
for (const file of walk(join(root, 'src')).filter((f) => f.endsWith('.sql') || f.endsWith('.json'))) {
  cpSync(file, join(root, 'dist', relative(root, file)));
}
