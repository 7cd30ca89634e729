// Issue 2 benchmarks: `svc --version` cold start (target median < 250 ms) and GET /api/v2/me with a
// valid key over 50 connections on the file store (target >= 10,000 req/s), beside a bare fastify
// route answering the same JSON.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SVC, median, percentile, svcSync, startServer, load, report } from './lib.js';

export async function coldStart(runs = 21): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [SVC, '--version']);
    if (r.status !== 0) throw new Error('svc --version failed');
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    bare.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  report('svc --version cold start', {
    median_ms: median(times),
    p90_ms: percentile(times, 90),
    node_e0_median_ms: median(bare),
    target_ms: 250,
  });
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
  await coldStart();
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    const file = await meThroughput(`file:${dir}`, 'file store');
    const bare = await bareFastify();
    report('  /me on file store vs bare fastify', { ratio: file / bare, target_req_per_s: 10_000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
