// Checks the compiler does not: tests that focus or skip, unfinished markers in shipped code, and
// console output from the service layer (it logs through the injected Log).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const walk = (dir) =>
  readdirSync(join(root, dir)).flatMap((n) => {
    const p = join(dir, n);
    return statSync(join(root, p)).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });

const rules = [
  { dirs: ['test'], re: /\.only\(|\b(it|test)\.skip\(|\{\s*skip:\s*true|\.todo\(/, why: 'focused or skipped test' },
  { dirs: ['src', 'daemon', 'commands'], re: /\bTODO\b|\bFIXME\b|not implemented/i, why: 'unfinished marker' },
  { dirs: ['src'], re: /\bconsole\.(log|error|warn)\(/, why: 'console output in src/ (use the injected Log)' },
];
let bad = 0;
for (const { dirs, re, why } of rules) {
  for (const file of dirs.flatMap(walk)) {
    readFileSync(join(root, file), 'utf8').split('\n').forEach((line, i) => {
      if (re.test(line)) {
        console.error(`${file}:${i + 1}: ${why}: ${line.trim()}`);
        bad++;
      }
    });
  }
}
if (bad) process.exit(1);
console.log('lint: ok');
