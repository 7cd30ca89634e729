// `npm test`: every test/**/*.test.ts under node:test (via tsx). Postgres per CONTRACT.md
// "Environment of the test suite": DATABASE_URL when set, else postgres://localhost:5432/test when
// one answers there; otherwise one line says so and the file-store suites run alone.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
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
const files = (only.length ? only : findTests(join(root, 'test')))
  .map((f) => relative(root, f))
  .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
// Every test has a deadline: one that hangs (a socket that never answers, a process that never
// exits) fails after TEST_TIMEOUT_MS instead of holding CI until its own limit; the deadline leaves
// the longest tests room on a slower machine.
const TEST_TIMEOUT_MS = 600_000;
// Three files at once on two cores: most tests wait on sockets, fsync and child processes. The
// whole suite took 807 s with two at once, 637 s with four and 588 s with three (2026-11-27).
const CONCURRENCY = 3;
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${CONCURRENCY}`,
    `--test-timeout=${TEST_TIMEOUT_MS}`,
    // The usual report (spec on a terminal, TAP otherwise), and the slowest files at the end.
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/file-times.mjs',
    '--test-reporter-destination=stdout',
    ...files,
  ],
  {
    cwd: root,
    env,
    stdio: 'inherit',
  },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
