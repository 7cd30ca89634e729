// After tsc: the file store's compiled modules (dist/src/store/file, about fifty) are joined into a
// few files, because an admin command with no daemon loads most of them, and Node 20's module loader
// spends about a millisecond on each module it resolves, reads, compiles and links: the joined store
// starts about twice as fast (README "Benchmarks", start-up). Nothing else changes:
// - every module of the folder that code outside it imports stays a file of its own name (an entry),
//   so imports from outside resolve as before;
// - what two entries share goes into a chunk both import (esbuild's splitting), never a second copy,
//   so each class (FileStore, LockHeldError) exists once and instanceof holds;
// - imports of modules outside the folder, and of packages, are left as imports of those same
//   files: the joined store shares SvcError, the model and the rest with the code around it;
// - a module loaded on demand (import()) stays loaded on demand, in a chunk of its own.
// joined.json records which modules each file now holds (the start-up test reads it).
//
// tsc builds incrementally and does not write again an output it believes is there, so tsc's own
// files are kept aside (dist/.file-store-tsc) rather than deleted, and `--undo` (run before tsc by
// `npm run build`) puts them back: tsc then sees the files it wrote, and rewrites those that changed.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdtempSync, renameSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const folder = join(dist, 'src/store/file');
const aside = join(dist, '.file-store-tsc');
const inFolder = (p) => dirname(p) === folder;

if (process.argv.includes('--undo')) {
  if (existsSync(join(folder, 'joined.json'))) {
    for (const name of Object.keys(JSON.parse(readFileSync(join(folder, 'joined.json'), 'utf8'))))
      rmSync(join(folder, name), { force: true });
    rmSync(join(folder, 'joined.json'));
  }
  if (existsSync(aside)) {
    for (const name of readdirSync(aside)) renameSync(join(aside, name), join(folder, name));
    rmSync(aside, { recursive: true });
  }
  process.exit(0);
}
if (existsSync(join(folder, 'joined.json'))) throw new Error('join-file-store: already joined (run it with --undo first)');

const walk = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));

// The folder's modules that code outside it imports (statically or with import()).
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
const entries = new Set();
for (const file of walk(dist).filter((f) => f.endsWith('.js') && !inFolder(f))) {
  for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    const target = resolve(dirname(file), m[1]);
    if (inFolder(target)) entries.add(target);
  }
}
if (!entries.size) throw new Error('join-file-store: no module of dist/src/store/file is imported from outside it');

const out = mkdtempSync(join(tmpdir(), 'svc-join-'));
const outside = {
  name: 'outside-stays-outside',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      // Packages: imported as before, from node_modules.
      if (!args.path.startsWith('.') && !args.path.startsWith('/')) return { path: args.path, external: true };
      const target = resolve(args.resolveDir, args.path);
      if (inFolder(target)) return undefined;
      // Outside the folder: the same file, by a path relative to the folder (where every output lies).
      let rel = relative(folder, target).split(sep).join('/');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return { path: rel, external: true };
    });
  },
};

const result = await build({
  entryPoints: [...entries],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'joined-[hash]',
  metafile: true,
  logLevel: 'warning',
  plugins: [outside],
});

// Which modules each output file holds, by their names in the folder.
const holds = {};
for (const [file, meta] of Object.entries(result.metafile.outputs)) {
  holds[relative(out, resolve(root, file))] = Object.keys(meta.inputs)
    .map((i) => relative(folder, resolve(root, i)))
    .sort();
}
const joined = new Set(Object.values(holds).flat());

// The folder's compiled modules now inside an output go aside; the outputs take their places.
mkdirSync(aside, { recursive: true });
for (const name of joined) renameSync(join(folder, name), join(aside, name));
for (const name of Object.keys(holds)) renameSync(join(out, name), join(folder, name));
rmSync(out, { recursive: true, force: true });
writeFileSync(join(folder, 'joined.json'), `${JSON.stringify(holds, null, 2)}\n`);
