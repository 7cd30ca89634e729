// Checks the compiler does not: tests that focus or skip, unfinished markers in shipped code,
// console output from the service layer (it logs through the injected Log), the layers of
// ARCHITECTURE.md (layers.mjs), and files that grew past a size nobody explained.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { layerProblems } from './layers.mjs';

const root = new URL('..', import.meta.url).pathname;
const walk = (dir) =>
  readdirSync(join(root, dir)).flatMap((n) => {
    const p = join(dir, n);
    return statSync(join(root, p)).isDirectory() ? walk(p) : /\.tsx?$/.test(p) ? [p] : [];
  });

const rules = [
  { dirs: ['test'], re: /\.only\(|\b(it|test)\.skip\(|\{\s*skip:\s*true|\.todo\(/, why: 'focused or skipped test' },
  { dirs: ['src', 'daemon', 'commands'], re: /\bTODO\b|\bFIXME\b|not implemented/i, why: 'unfinished marker' },
  { dirs: ['src'], re: /\bconsole\.(log|error|warn)\(/, why: 'console output in src/ (use the injected Log)' },
  // The web app's pages are written with src/html.ts's `html`, which escapes every value.
  { dirs: ['daemon/http'], re: /(?<!html)`<[a-z!/]/i, why: 'HTML in a plain template string (write it with html`` from src/html.ts)' },
];
let bad = 0;
for (const { dirs, re, why } of rules) {
  for (const file of dirs.flatMap(walk)) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (re.test(line)) {
          console.error(`${file}:${i + 1}: ${why}: ${line.trim()}`);
          bad++;
        }
      });
  }
}
// The layers, read with TypeScript's parser (layers.mjs): upward and sideways imports, folder cycles.
for (const problem of layerProblems()) {
  console.error(problem);
  bad++;
}

// A file longer than this says at its top (in its first comment) why it is long.
const LONG = 350;
for (const file of ['src', 'daemon', 'commands'].flatMap(walk)) {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  if (lines.length > LONG && !lines.slice(0, 12).some((l) => /long because/i.test(l))) {
    console.error(`${file}: ${lines.length} lines: split it, or say at its top why it is long ("Long because ...")`);
    bad++;
  }
}
if (bad) process.exit(1);
console.log('lint: ok');
