// Benchmarks: the binary's start-up (within 2x of node itself) and GET /api/v2/me with a
// valid key over 50 connections on the file store (target >= 10,000 req/s), beside a bare fastify
// route answering the same JSON.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SVC, alternatedPairs, median, percentile, svcSync, startServer, load, report } from './lib.js';

const spawnMs = (args: string[], env?: Record<string, string>): number => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, env ? { env: { ...process.env, ...env } } : {});
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

/**
 * How long the binary takes to start, against `node -e 0` in paired runs (each pair in
 * turn order): `svc --version` and `--help`, which load no command; `svc keys list`, which opens a
 * file store's data file alone; `messages list` and `suppressions list`, which open the whole
 * store (its journals replayed); then the same admin commands beside a running daemon, through its
 * socket (the usual case in production); and on a store with 100,000 subscribers, `messages list`
 * (which must not read them) and `subscribers list` (which must). The ratio of each pair, then the median.
 */
const SUBSCRIBERS = 100_000;

/** The start-up target beside `node -e 0`: Node 22 and later cache compiled code (module.enableCompileCache). */
const TARGET_RATIO = Number(process.versions.node.split('.')[0]) >= 22 ? 1.6 : 2.3;

export async function coldStart(runs = 21): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-cli-'));
  try {
    const env = { SVC_STORE: `file:${dir}`, SVC_WORKSPACE: 'bench' };
    svcSync(['workspaces', 'create', 'bench', '--json'], env);
    svcSync(['suppressions', 'add', 'a@bench.test', '--json'], env);
    const admin: Record<string, string[]> = {
      'keys list': [SVC, 'keys', 'list', '--json'],
      'messages list': [SVC, 'messages', 'list', '--json'],
      'suppressions list': [SVC, 'suppressions', 'list', '--json'],
    };
    const pairs = async (name: string, args: string[], e?: Record<string, string>) => {
      const p = await alternatedPairs(
        runs,
        async () => spawnMs(args, e),
        async () => spawnMs(['-e', '0']),
      );
      report(`svc ${name} start-up, ${runs} pairs beside node -e 0 (Node ${process.versions.node})`, {
        median_ms: median(p.map((x) => x.a)).toFixed(0),
        p90_ms: percentile(
          p.map((x) => x.a),
          90,
        ).toFixed(0),
        node_e0_median_ms: median(p.map((x) => x.b)).toFixed(0),
        ratio_median: median(p.map((x) => x.a / x.b)).toFixed(2),
        target_ratio: TARGET_RATIO,
      });
    };
    await pairs('--version', [SVC, '--version']);
    await pairs('--help', [SVC, '--help']);
    for (const [name, args] of Object.entries(admin)) await pairs(`${name} (file store, no daemon)`, args, env);
    // A newsletter-sized store: a command that does not use lists must not read its subscribers
    // (the subscribers journal is read on first use); one that lists them does.
    const list = JSON.parse(svcSync(['lists', 'create', 'news', '--json'], env)).id as string;
    const csv = join(dir, 'subscribers.csv');
    writeFileSync(csv, `email,name\n${Array.from({ length: SUBSCRIBERS }, (_, i) => `user${i}@bench.test,User ${i}\n`).join('')}`);
    svcSync(['workspaces', 'set-plan', 'bench', 'scale', '--json'], env);
    svcSync(['subscribers', 'import', list, csv, '--json'], env);
    await pairs(`messages list (file store with ${SUBSCRIBERS.toLocaleString('en')} subscribers, no daemon)`, admin['messages list']!, env);
    await pairs(`subscribers list (the same, no daemon)`, [SVC, 'subscribers', 'list', list, '--limit', '1', '--json'], env);
    const daemon = await startServer([SVC, 'serve', '--api-port', '0', '--relay-port', '0', '--mx-port', '0'], env);
    try {
      for (const [name, args] of Object.entries(admin)) await pairs(`${name} (beside svc serve)`, args, env);
    } finally {
      await daemon.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function meThroughput(store: string, label: string): Promise<number> {
  const env = { SVC_STORE: store };
  svcSync(['workspaces', 'create', 'bench', '--json'], env);
  const key = JSON.parse(svcSync(['keys', 'create', '--workspace', 'bench', '--json'], env)).key as string;
  const daemon = await startServer([SVC, 'serve', '--api-port', '0', '--relay-port', '0', '--mx-port', '0'], env);
  try {
    await load({ url: `${daemon.url}/api/v2/me`, duration: 1, headers: { authorization: `Bearer ${key}` } });
    const r = await load({ url: `${daemon.url}/api/v2/me`, headers: { authorization: `Bearer ${key}` } });
    if (r.non2xx || r.errors) throw new Error(`/me answered ${r.non2xx} non-2xx, ${r.errors} errors`);
    report(`GET /api/v2/me (${label})`, { req_per_s: Math.round(r.requests.average), p99_ms: r.latency.p99, connections: 50 });
    return r.requests.average;
  } finally {
    await daemon.stop();
  }
}

export async function bareFastify(): Promise<number> {
  const server = await startServer(['--import', 'tsx', fileURLToPath(new URL('./bare-fastify.ts', import.meta.url))]);
  try {
    await load({ url: `${server.url}/api/v2/me`, duration: 1 });
    const r = await load({ url: `${server.url}/api/v2/me` });
    report('bare fastify, same JSON', { req_per_s: Math.round(r.requests.average), p99_ms: r.latency.p99, connections: 50 });
    return r.requests.average;
  } finally {
    await server.stop();
  }
}

export async function foundation(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    const file = await meThroughput(`file:${dir}`, 'file store');
    const bare = await bareFastify();
    report('  /me on file store vs bare fastify', { ratio: file / bare, target_req_per_s: 10_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
