// A node:test reporter for `npm test`: at the end, the ten test files that took longest (the sum of
// their top-level tests), so that a slow file is seen before it pushes CI past its ten minutes.
// scripts/test.mjs starts the slowest files first; this list is how that order is kept true.
export default async function* fileTimes(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      perFile.set(event.data.file, (perFile.get(event.data.file) ?? 0) + (event.data.details?.duration_ms ?? 0));
    }
  }
  const root = process.cwd() + '/';
  const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  yield `slowest test files (seconds, the sum of their tests):\n`;
  for (const [file, ms] of slowest) yield `  ${(ms / 1000).toFixed(1).padStart(6)}  ${file.replace(root, '')}\n`;
}
