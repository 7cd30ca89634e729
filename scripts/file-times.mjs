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
  // SVC_TEST_TIMES=all lists every file (how the suite's time is spread), else the ten slowest.
  const all = process.env.SVC_TEST_TIMES === 'all';
  const slowest = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, all ? perFile.size : 10);
  const total = [...perFile.values()].reduce((a, b) => a + b, 0);
  yield `slowest test files (seconds, the sum of their tests; ${Math.round(total / 1000)} s in all):\n`;
  // Named by their sources (the compiled file of test/x.test.ts is dist/test/x.test.js).
  const named = (file) =>
    file
      .replace(root, '')
      .replace(/^dist\//, '')
      .replace(/\.js$/, '.ts');
  for (const [file, ms] of slowest) yield `  ${(ms / 1000).toFixed(1).padStart(6)}  ${named(file)}\n`;
}
