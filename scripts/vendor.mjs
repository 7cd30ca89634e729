// Kysely as one file (dist/vendor/kysely.js, the package's `#kysely` import): its own ESM build is
// 280 modules, which took 85-110 ms of every store-opening command's start on Node 20; one bundled
// file takes 11-13 ms (measured 2026-11-29, bench/RESULTS.md). Types still come from the package.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  entryPoints: [`${root}node_modules/kysely/dist/esm/index.js`],
  bundle: true,
  format: 'esm',
  platform: 'node',
  outfile: `${root}dist/vendor/kysely.js`,
  logLevel: 'warning',
});
