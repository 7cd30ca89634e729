// Checks the compiler does not: tests that focus or skip, unfinished markers in shipped code,
// console output from the service layer (it logs through the injected Log), the layers (the model
// and the store import nothing above them), and files that grew past a size nobody explained.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

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
// The layers: src/model/ is the bottom (it may use the error registry); src/store/ builds on the
// model and nothing else of src/ but the error registry and the Log type.
const layers = [
  { dir: 'src/model', may: ['src/model/', 'src/errors.ts'] },
  { dir: 'src/store', may: ['src/model/', 'src/store/', 'src/errors.ts', 'src/log.ts'] },
];
for (const { dir, may } of layers) {
  for (const file of walk(dir)) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const m = /^(?:import|export)\b.*from '(\.[^']+)'/.exec(line);
        if (!m) return;
        const target = relative(root, resolve(dirname(join(root, file)), m[1])).replace(/\.js$/, '.ts');
        if (!may.some((p) => target.startsWith(p))) {
          console.error(`${file}:${i + 1}: ${dir}/ imports ${target}, above its layer (allowed: ${may.join(', ')})`);
          bad++;
        }
      });
  }
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
