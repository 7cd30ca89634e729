// `npm test`: every test/**/*.test.ts under node:test, compiled (dist/test/**/*.test.js). Postgres per CONTRACT.md
// "Environment of the test suite": DATABASE_URL when set, else postgres://localhost:5432/test when
// one answers there; otherwise one line says so and the file-store suites run alone.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';

const root = new URL('..', import.meta.url).pathname;

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

function answers(url) {
  return new Promise((resolve) => {
    let u;
    try {
      u = new URL(url);
    } catch {
      return resolve(false);
    }
    const sock = createConnection({ host: u.hostname || 'localhost', port: Number(u.port || 5432) });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(2000, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

const env = { ...process.env };
const candidate = env.DATABASE_URL || 'postgres://localhost:5432/test';
if (await answers(candidate)) {
  env.SVC_TEST_DATABASE_URL = candidate;
  console.log(`postgres: using ${candidate.replace(/\/\/[^@/]*@/, '//***@')}`);
} else {
  delete env.SVC_TEST_DATABASE_URL;
  console.log(`postgres: nothing answers at ${candidate.replace(/\/\/[^@/]*@/, '//***@')}; running the file-store suites alone`);
}

const only = process.argv.slice(2);
// The longest files start first (the ten slowest of a full run, as the report at the end lists
// them): started last, one of them would run alone at the end while the other slots sat idle.
const SLOW_FIRST = [
  'test/bin/mx-flood.test.ts',
  'test/daemon/relay.test.ts',
  'test/bin/broadcasts.test.ts',
  'test/daemon/mx.test.ts',
  'test/daemon/lists-import.test.ts',
  'test/daemon/broadcast.test.ts',
  'test/daemon/bounce-classes.test.ts',
  'test/bin/live-views.test.ts',
  'test/bin/lists.test.ts',
  'test/daemon/delivery.test.ts',
];
const rank = (f) => (SLOW_FIRST.includes(f) ? SLOW_FIRST.indexOf(f) : SLOW_FIRST.length);
// The tests run compiled (`npm run lint` type-checks and writes them to dist/test/, beside the
// compiled product), as the product runs: under a TypeScript loader every test process and every
// worker thread of its daemons would compile the code again. The list comes from the sources, so
// a compiled test whose source is gone never runs.
const compiled = (f) => join('dist', f.replace(/\.ts$/, '.js'));
const files = (only.length ? only : findTests(join(root, 'test')))
  .map((f) => relative(root, f))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  .map((f) => (f.startsWith('dist/') ? f : compiled(f)));
const missing = files.filter((f) => !existsSync(join(root, f)));
if (missing.length) {
  console.error(`not compiled: ${missing.join(', ')} (npm run lint writes dist/test/)`);
  process.exit(1);
}
// Every test has a deadline: one that hangs (a socket that never answers, a process that never
// exits) fails after TEST_TIMEOUT_MS instead of holding CI until its own limit; the deadline leaves
// the longest tests room on a slower machine.
const TEST_TIMEOUT_MS = 600_000;
// Files at once on two cores: most tests wait on sockets, fsync and child processes.
const CONCURRENCY = Number(process.env.SVC_TEST_CONCURRENCY) || 4;
const nodeTest = (node, list, concurrency, stdio, extraEnv = {}) =>
  spawn(
    node,
    [
      '--enable-source-maps',
      '--test',
      `--test-concurrency=${concurrency}`,
      `--test-timeout=${TEST_TIMEOUT_MS}`,
      // The usual report (spec on a terminal, TAP otherwise), and the slowest files at the end.
      `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/file-times.mjs',
      '--test-reporter-destination=stdout',
      ...list,
    ],
    { cwd: root, env: { ...env, ...extraEnv }, stdio },
  );
const exited = (child) => new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1))));

// SVC_TEST_NODE: a second Node (CI: the newest) that runs the unit tests (test/src/) and the
// daemon's smoke test beside the whole suite, its report printed after the suite's.
const second = only.length ? undefined : process.env.SVC_TEST_NODE;
const secondFiles = files.filter((f) => f.startsWith('dist/test/src/') || f === 'dist/test/daemon/smoke.test.js');
let secondRun = null;
if (second) {
  // Its better-sqlite3 built for it (SVC_TEST_SQLITE, .ci/run), for it and every child and thread.
  const sqlite = process.env.SVC_TEST_SQLITE
    ? { NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${join(root, 'test/helpers/second-node.mjs')}`.trim() }
    : {};
  const c = nodeTest(second, secondFiles, 1, ['ignore', 'pipe', 'inherit'], sqlite);
  const out = [];
  c.stdout.on('data', (d) => out.push(d));
  secondRun = exited(c).then((code) => ({ code, out: Buffer.concat(out) }));
}
const code = await exited(nodeTest(process.execPath, files, CONCURRENCY, 'inherit'));
if (secondRun) {
  const { code: secondCode, out } = await secondRun;
  const version = spawnSync(second, ['--version'], { encoding: 'utf8' }).stdout.trim();
  process.stdout.write(`\n== the unit tests and the smoke test on Node ${version} (${second})\n`);
  process.stdout.write(out);
  process.exit(code || secondCode);
}
process.exit(code);
