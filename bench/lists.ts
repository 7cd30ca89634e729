// Benchmarks: newsletter lists sized for real lists.
// - `svc subscribers import` of 100,000 rows through the CLI, no daemon (targets: under 10 s on the
//   file store, under 15 s on Postgres).
// - GET subscribers, a page of 100 at offset 0 and at offset 90,000, through a daemon (target: the
//   deep page within 2x of the first), medians of 20.
// - One-click unsubscribe POSTs a second (autocannon, each POST to another subscriber's URL).
// - The daemon's RSS with 1,000,000 subscribers stored (file store; target under 400 MB): the
//   subscribers are imported through the CLI, then a daemon is started on the store and its RSS
//   read after it answers a page; then the time DELETE of that list takes to answer.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SVC, load, median, report, startServer, svcSync } from './lib.js';

const databaseUrl = process.env.DATABASE_URL || 'postgres://localhost:5432/test';
const ROWS = Number(process.env.SVC_BENCH_LIST_ROWS ?? 100_000);
const MILLION = Number(process.env.SVC_BENCH_LIST_MEMORY_ROWS ?? 1_000_000);

function csvFile(dir: string, rows: number, from = 0): string {
  const path = join(dir, `rows-${from}-${rows}.csv`);
  const lines = ['email,name,tags'];
  for (let i = from; i < from + rows; i++) lines.push(`user${i}@example${i % 50}.test,"Name, ${i}",a;b`);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** Wall time of one CLI import, in seconds. */
function importSeconds(store: string, listId: string, csv: string): number {
  const t0 = performance.now();
  svcSync(['--store', store, 'subscribers', 'import', listId, csv, '--workspace', 'bench', '--json']);
  return (performance.now() - t0) / 1000;
}

function prepare(store: string): string {
  svcSync(['--store', store, 'workspaces', 'create', 'bench', '--plan', 'scale', '--json']);
  return JSON.parse(svcSync(['--store', store, 'lists', 'create', 'Bench', '--workspace', 'bench', '--json'])).id as string;
}

async function pages(store: string, listId: string): Promise<void> {
  const key = JSON.parse(svcSync(['--store', store, 'keys', 'create', '--workspace', 'bench', '--scopes', 'newsletter', '--json']))
    .key as string;
  const d = await startServer([SVC, 'serve', '--store', store, '--api-port', '0', '--relay-port', '0', '--mx-port', '0']);
  try {
    const page = async (offset: number) => {
      const t0 = performance.now();
      const r = await fetch(`${d.url}/api/v2/lists/${listId}/subscribers?limit=100&offset=${offset}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (r.status !== 200) throw new Error(`GET subscribers: ${r.status}`);
      await r.json();
      return performance.now() - t0;
    };
    for (let i = 0; i < 5; i++) await Promise.all([page(0), page(90_000)]);
    const first: number[] = [];
    const deep: number[] = [];
    for (let i = 0; i < 20; i++) {
      first.push(await page(0));
      deep.push(await page(90_000));
    }
    report(`  ${store.split(':')[0]}: GET subscribers`, {
      offset0_ms: median(first),
      offset90k_ms: median(deep),
      ratio: median(deep) / median(first),
      target: 'ratio < 2',
    });
    // One-click unsubscribes, each to another subscriber's URL.
    const tokens: string[] = [];
    for (let offset = 0; tokens.length < 20_000; offset += 1000) {
      const r = (await (
        await fetch(`${d.url}/api/v2/lists/${listId}/subscribers?limit=1000&offset=${offset}`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).json()) as { data: Array<{ unsubscribe_token: string }> };
      tokens.push(...r.data.map((s) => s.unsubscribe_token));
    }
    let next = 0;
    const result = await load({
      url: d.url,
      connections: 20,
      amount: tokens.length,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'List-Unsubscribe=One-Click',
          setupRequest: (req) => ({ ...req, path: `/u/${tokens[next++ % tokens.length]}` }),
        },
      ],
    });
    report(`  ${store.split(':')[0]}: one-click unsubscribe POSTs`, {
      per_s: Math.round(result.requests.average),
      non2xx: result.non2xx,
      p99_ms: result.latency.p99,
    });
  } finally {
    await d.stop();
  }
}

export async function lists(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-lists-'));
  const schema = `svc_bench_${randomBytes(4).toString('hex')}`;
  const u = new URL(databaseUrl);
  u.searchParams.set('schema', schema);
  const pgStore = u.toString();
  try {
    const csv = csvFile(dir, ROWS);
    const fileStore = `file:${join(dir, 'store')}`;
    const fileList = prepare(fileStore);
    report(`import ${ROWS.toLocaleString('en')} rows through the CLI`, {
      file_s: importSeconds(fileStore, fileList, csv),
      target: '< 10 s',
    });
    svcSync(['--store', pgStore, 'migrate']);
    const pgList = prepare(pgStore);
    report(`import ${ROWS.toLocaleString('en')} rows through the CLI`, {
      postgres_s: importSeconds(pgStore, pgList, csv),
      target: '< 15 s',
    });
    await pages(fileStore, fileList);
    await pages(pgStore, pgList);

    // A million subscribers in a file store, then the daemon's RSS on it.
    const big = `file:${join(dir, 'million')}`;
    const bigList = prepare(big);
    const t0 = performance.now();
    for (let from = 0; from < MILLION; from += 250_000) importSeconds(big, bigList, csvFile(dir, Math.min(250_000, MILLION - from), from));
    const fillS = (performance.now() - t0) / 1000;
    const key = JSON.parse(svcSync(['--store', big, 'keys', 'create', '--workspace', 'bench', '--scopes', 'newsletter', '--json']))
      .key as string;
    const t1 = performance.now();
    const d = await startServer([SVC, 'serve', '--store', big, '--api-port', '0', '--relay-port', '0', '--mx-port', '0']);
    const startS = (performance.now() - t1) / 1000;
    try {
      const r = await fetch(`${d.url}/api/v2/lists/${bigList}/subscribers?limit=100&offset=500000`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const body = (await r.json()) as { total: number };
      const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${d.child.pid}/status`, 'utf8'))![1]) * 1024;
      report(`file store, ${MILLION.toLocaleString('en')} subscribers`, {
        daemon_rss_mb: Math.round(rss / 1048576),
        daemon_start_s: startS,
        imported_in_s: fillS,
        total: body.total,
        target: 'rss < 400 MB',
      });
      // Deleting that list: answered at once, its subscribers let go of in the background.
      const t2 = performance.now();
      const del = await fetch(`${d.url}/api/v2/lists/${bigList}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
      const delMs = performance.now() - t2;
      const gone = await fetch(`${d.url}/api/v2/lists/${bigList}`, { headers: { authorization: `Bearer ${key}` } });
      report(`  DELETE of that list`, { status: del.status, answered_ms: delMs, then_get: gone.status });
    } finally {
      await d.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    spawnSync('psql', [databaseUrl.replace(/\?.*$/, ''), '-qc', `DROP SCHEMA IF EXISTS ${schema} CASCADE`]);
  }
}
