// After tsc (and join-file-store.mjs): the admin commands as one CommonJS file, dist/cli.cjs, and
// V8's code cache for it, dist/cli.cjs.cache (README "Start-up"). Node 20 keeps no compiled code
// between runs for ES modules, so every command compiled its modules again at every start; a
// script compiled with cached data skips that. bin/svc runs the bundle with the cache
// (bin/bundle.mjs) for every command but `svc serve`, which runs dist's modules as before.
//
// What is bundled: dist/commands/main.js and every module of ours it reaches, statically or by
// import(), which stays on demand (esbuild runs a module's top level only when it is first
// imported). What is not:
// - packages: required from node_modules as before (`packages: 'external'`);
// - the daemon (dist/daemon/): only `svc serve` reaches it, and that runs from dist;
// - the live views (modules compiled from .tsx): they import ink, whose yoga-layout awaits at its
//   top level and so cannot be required; they stay ES modules, imported from dist on demand. They
//   use nothing of ours but terminal.js's pure helpers, so no class exists twice where it matters.
//   A static import of one from bundled code would be a require(): the build refuses it.
// `import.meta.url` becomes each module's own dist/ address, so files read beside a module
// (manifest.json, package.json, the workers' entry files) are found as before.
//
// The cache: a child process loads the bundle as bin/svc does and runs a set of commands on a
// scratch store, so the functions they compile are in it, then writes it. V8 refuses a cache made
// by another V8 or with other flags (the bundle then compiles as usual: slower, never wrong); npm ci
// and npm run build make it on the machine that runs it.
import { build } from 'esbuild';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const out = join(dist, 'cli.cjs');
const posix = (p) => p.split(sep).join('/');

/** Modules compiled from .tsx (the ink views) and the daemon: imported from dist, never bundled. */
const staysOutside = (file) => {
  const rel = posix(relative(dist, file));
  return rel.startsWith('daemon/') || existsSync(join(root, rel.replace(/\.js$/, '.tsx')));
};

const outside = {
  name: 'views-and-daemon-stay-in-dist',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const target = resolve(args.resolveDir, args.path);
      if (!staysOutside(target)) return undefined;
      if (args.kind !== 'dynamic-import')
        return { errors: [{ text: `${posix(relative(dist, args.importer))} imports ${args.path} statically; it can only be import()ed` }] };
      let rel = posix(relative(dist, target));
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return { path: rel, external: true };
    });
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist)) return undefined;
      const rel = posix(relative(dist, args.path));
      const url = `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(rel)})).href`;
      const source = readFileSync(args.path, 'utf8');
      const contents = source.replaceAll('import.meta.url', `(${url})`);
      if (/\bimport\.meta\b/.test(contents))
        return { errors: [{ text: `${rel} uses import.meta beyond import.meta.url, which a CommonJS bundle does not have` }] };
      return { contents, loader: 'js' };
    });
  },
};

rmSync(`${out}.cache`, { force: true });
const result = await build({
  metafile: true,
  entryPoints: [join(dist, 'commands/main.js')],
  outfile: out,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
  legalComments: 'none',
  // Less to read and hash at every start (580 KB rather than 820); names are kept, so a stack
  // trace (--debug) still names the functions.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [outside],
});

// A function compiled from a code cache loses the way to Node's loader that import() needs (in
// Node 20 it then throws 'A dynamic import callback was not specified'), so the bundle's import()s
// (of packages, the live views and the daemon: each a string esbuild wrote as import("...")) call
// the loader's own, which bin/bundle.mjs hands the bundle as __svcImport.
const code = readFileSync(out, 'utf8');
const IMPORT = /\bimport\("([^"]+)"\)/g;
const found = [...code.matchAll(IMPORT)].map((m) => m[1]).sort();
// Exactly esbuild's own import()s: a string of ours that held `import("...")` would be rewritten too.
const written = Object.values(result.metafile.outputs)
  .flatMap((o) => o.imports)
  .filter((i) => i.kind === 'dynamic-import' && i.external)
  .map((i) => i.path)
  .sort();
if (found.join('\n') !== written.join('\n'))
  throw new Error(`bundle-cli: the bundle's import("...") texts (${found.join(', ')}) are not esbuild's import()s (${written.join(', ')})`);
writeFileSync(out, code.replace(IMPORT, '__svcImport("$1")'));

const warm = spawnSync(process.execPath, [join(root, 'bin/bundle.mjs'), '--write-cache'], { stdio: ['ignore', 'inherit', 'inherit'] });
if (warm.status !== 0) throw new Error(`bundle-cli: making the code cache failed (exit ${warm.status ?? warm.signal})`);
