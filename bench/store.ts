// `npm run bench -- store`: the embedded store (svc.json and SQLite) side by side with the build
// before it, the journal file store, in alternating runs of the same client in the same process:
// - POST /emails accepted a second (5 s of 50 connections, --no-delivery);
// - end-to-end: the relay, DKIM, a loopback sink (3,000 messages over 20 connections), and the
//   event loop's delay in the daemon meanwhile (p99 and max, from its /metrics: a commit's fsync
//   and everything else that blocks it);
// - the daemon's RSS as the store fills through the relay (after 5,000, 105,000 and 505,000
//   records; SVC_BENCH_FILL=1000000 goes on to a million), and its restart to /healthz 200;
// - `svc messages list --limit 10` and `svc subscribers list --limit 10` on a store of
//   SVC_BENCH_ROWS (1,000,000) messages and subscribers, against `node -e 0`.
// The build before is SVC_BENCH_BEFORE, a checkout of it with its dependencies installed
//   (git archive 2963cb4 | tar -x -C DIR && cd DIR && npm ci); without it those figures are skipped.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { publish } from '../test/helpers/domains.js';
import { SVC, alternatedPairs, benchChild, load, median, report, startServer } from './lib.js';
import { LOAD, drive } from './smtp-harness.js';
import { post } from './send.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { batch } from '../test/src/store/conformance/fixtures.js';

interface Build {
  name: string;
  bin: string;
}

const builds = (): Build[] => {
  const before = process.env.SVC_BENCH_BEFORE;
  const now = { name: 'sqlite', bin: SVC };
  if (!before || !existsSync(join(before, 'bin/svc'))) {
    process.stdout.write('store: the build before is skipped (SVC_BENCH_BEFORE names no checkout of it)\n');
    return [now];
  }
  return [now, { name: 'journal', bin: join(before, 'bin/svc') }];
};

/** Runs a command of `b` (not synchronously: the fixture DNS it asks runs in this process). */
const run = (b: Build, args: string[]): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [b.bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${b.name}: svc ${args.join(' ')}: ${err}`))));
  });

/** A fresh store of `b` with acme.test verified against `dns`, an address and a key; the key. */
async function prepare(b: Build, dir: string, dns: FixtureDns): Promise<string> {
  const s = ['--store', `file:${dir}`];
  await run(b, [...s, 'workspaces', 'create', 'bench', '--plan', 'scale', '--json']);
  const d = JSON.parse(await run(b, [...s, 'domains', 'add', 'acme.test', '--workspace', 'bench', '--json'])) as {
    records: Parameters<typeof publish>[2];
  };
  publish(dns, 'acme.test', d.records);
  await run(b, [...s, 'domains', 'verify', 'acme.test', '--workspace', 'bench', '--dns-server', dns.server, '--json']);
  await run(b, [...s, 'addresses', 'add', 'hello@acme.test', '--workspace', 'bench', '--json']);
  const key = JSON.parse(await run(b, [...s, 'keys', 'create', '--workspace', 'bench', '--scopes', 'send,read', '--json'])) as {
    key: string;
  };
  return key.key;
}

async function daemon(b: Build, dir: string, args: string[]) {
  const d = await startServer([
    b.bin,
    'serve',
    '--store',
    `file:${dir}`,
    '--api-port',
    '0',
    '--relay-port',
    '0',
    '--mx-port',
    '0',
    ...args,
  ]);
  const port = (name: string) => Number(new RegExp(`${name} listening on \\w+://[^:]+:(\\d+)`).exec(d.lines.join('\n'))?.[1]);
  // The metrics listener may say so after the others.
  for (let i = 0; args.includes('--metrics-port') && !port('metrics') && i < 500; i++) await new Promise((r) => setTimeout(r, 10));
  return { ...d, relay: port('relay'), metrics: port('metrics') };
}

/** One fresh store of `b`, prepared: `fn` runs on it, then it goes. */
async function onFresh<T>(b: Build, dns: FixtureDns, fn: (dir: string, key: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `svc-bench-${b.name}-`));
  try {
    return await fn(dir, await prepare(b, dir, dns));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const acceptRate = (b: Build, dns: FixtureDns) =>
  onFresh(b, dns, async (dir, key) => {
    const d = await daemon(b, dir, ['--no-delivery']);
    try {
      await load({ url: `${d.url}/api/v2/emails`, amount: 2000, ...post(key) });
      return (await load({ url: `${d.url}/api/v2/emails`, ...post(key) })).requests.average;
    } finally {
      await d.stop();
    }
  });

/** A Prometheus gauge's value from the daemon's /metrics. */
async function gauge(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

const endToEnd = (b: Build, dns: FixtureDns, sinkPort: number, count: () => number, n = 3000) =>
  onFresh(b, dns, async (dir, key) => {
    const d = await daemon(b, dir, ['--outbound', `smtp://127.0.0.1:${sinkPort}`, '--delivery-concurrency', '64', '--metrics-port', '0']);
    try {
      const arrived = async (total: number) => {
        const since = Date.now();
        while (count() < total && Date.now() - since < 300_000) await new Promise((r) => setTimeout(r, 20));
      };
      const base = count();
      await drive({ port: d.relay, auth: key }, 1000);
      await arrived(base + 1000);
      const t0 = performance.now();
      await drive({ port: d.relay, auth: key }, n);
      await arrived(base + 1000 + n);
      const rate = n / ((performance.now() - t0) / 1000);
      return {
        rate,
        p99_ms: 1000 * (await gauge(d.metrics, 'nodejs_eventloop_lag_p99_seconds')),
        max_ms: 1000 * (await gauge(d.metrics, 'nodejs_eventloop_lag_max_seconds')),
      };
    } finally {
      await d.stop();
    }
  });

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** The daemon's RSS as records come in through the relay (accepted only), and its restart. */
const fill = (b: Build, dns: FixtureDns, marks: number[]) =>
  onFresh(b, dns, async (dir, key) => {
    const figures: Record<string, string | number> = {};
    let d = await daemon(b, dir, ['--no-delivery']);
    try {
      let sent = 0;
      for (const mark of marks) {
        while (sent < mark) {
          const n = Math.min(50_000, mark - sent);
          await drive({ port: d.relay, auth: key }, n, ['--size', '2048']);
          sent += n;
        }
        figures[`rss_${mark / 1000}k_mb`] = Math.round(rssMb(d.child.pid!));
      }
      await d.stop();
      const t0 = performance.now();
      d = await daemon(b, dir, ['--no-delivery']);
      while ((await fetch(`${d.url}/healthz`).catch(() => null))?.status !== 200) await new Promise((r) => setTimeout(r, 10));
      figures.restart_to_healthz_ms = Math.round(performance.now() - t0);
      figures.restart_rss_mb = Math.round(rssMb(d.child.pid!));
      return figures;
    } finally {
      await d.stop();
    }
  });

const spawnMs = (args: string[]): number => {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t0;
};

/** svc messages list and subscribers list on a store of `rows` messages and subscribers, against node -e 0. */
async function bigStoreCommands(rows: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-rows-'));
  try {
    const s = ['--store', `file:${dir}`];
    const now = builds()[0]!;
    await run(now, [...s, 'workspaces', 'create', 'bench', '--plan', 'scale', '--json']);
    const list = (JSON.parse(await run(now, [...s, 'lists', 'create', 'news', '--workspace', 'bench', '--json'])) as { id: string }).id;
    const t0 = performance.now();
    const store = await SqliteStore.open(dir, 'admin');
    try {
      const ws = (await store.workspaces.getByName('bench'))!.id;
      const at = new Date().toISOString();
      for (let i = 0; i < rows; i += 1000) {
        const b = batch(
          ws,
          Array.from({ length: 1000 }, (_, k) => `r${i + k}@rcpt.test`),
          at,
        );
        await store.messages.accept({ ...b, jobs: [] });
        await store.subscribers.upsertMany(
          ws,
          list,
          Array.from({ length: 1000 }, (_, k) => ({
            s: {
              id: randomUUID(),
              list_id: list,
              workspace_id: ws,
              email: `user${i + k}@bench.test`,
              name: '',
              status: 'active' as const,
              unsubscribe_token: randomUUID(),
              tags: [],
              created_at: at,
              updated_at: at,
            },
            update: { name: '', updated_at: at },
          })),
          null,
        );
      }
    } finally {
      await store.close();
    }
    report(`filled ${rows.toLocaleString('en')} messages and subscribers`, { seconds: ((performance.now() - t0) / 1000).toFixed(0) });
    const env = [...s, '--workspace', 'bench', '--json'];
    for (const [name, args] of [
      ['messages list --limit 10', [SVC, 'messages', 'list', '--limit', '10', ...env]],
      ['subscribers list --limit 10', [SVC, 'subscribers', 'list', list, '--limit', '10', ...env]],
    ] as const) {
      const pairs = await alternatedPairs(
        11,
        async () => spawnMs([...args]),
        async () => spawnMs(['-e', '0']),
      );
      report(`svc ${name}, ${rows.toLocaleString('en')} rows`, {
        median_ms: median(pairs.map((p) => p.a)).toFixed(0),
        node_e0_ms: median(pairs.map((p) => p.b)).toFixed(0),
        ratio: median(pairs.map((p) => p.a / p.b)).toFixed(2),
        target_ratio: '<= 2.5',
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function store(): Promise<void> {
  if (!existsSync(LOAD)) {
    process.stdout.write(`store: skipped, the load client ${LOAD} is not there\n`);
    return;
  }
  const bs = builds();
  const dns = await new FixtureDns().load(['sending.zone']).start();
  const sink = await benchChild('./sink-process.ts');
  try {
    const [now, before] = bs as [Build, Build | undefined];
    // SVC_BENCH_STORE_PARTS=e2e,fill,cli runs some of them.
    const part = (name: string) => !process.env.SVC_BENCH_STORE_PARTS || process.env.SVC_BENCH_STORE_PARTS.split(',').includes(name);
    // Three alternated pairs of each, and the medians.
    if (before && part('accept')) {
      const accept = await alternatedPairs(
        3,
        () => acceptRate(now, dns),
        () => acceptRate(before, dns),
      );
      report('POST /emails accepted a second', {
        sqlite: Math.round(median(accept.map((p) => p.a))),
        journal: Math.round(median(accept.map((p) => p.b))),
        ratio: median(accept.map((p) => p.a / p.b)),
        target: '>= 0.9',
      });
    }
    if (before && part('e2e')) {
      const e2e = await alternatedPairs(
        3,
        () => endToEnd(now, dns, sink.port, sink.count),
        () => endToEnd(before, dns, sink.port, sink.count),
      );
      report('relay, DKIM, sink: messages a second', {
        sqlite: Math.round(median(e2e.map((p) => p.a.rate))),
        journal: Math.round(median(e2e.map((p) => p.b.rate))),
        ratio: median(e2e.map((p) => p.a.rate / p.b.rate)),
        target: '>= 0.9',
      });
      report('  event loop delay during it', {
        sqlite_p99_ms: median(e2e.map((p) => p.a.p99_ms)),
        sqlite_max_ms: median(e2e.map((p) => p.a.max_ms)),
        journal_p99_ms: median(e2e.map((p) => p.b.p99_ms)),
        journal_max_ms: median(e2e.map((p) => p.b.max_ms)),
      });
    } else if (part('e2e')) {
      const e2e = await endToEnd(now, dns, sink.port, sink.count);
      report('relay, DKIM, sink: messages a second', { sqlite: Math.round(e2e.rate), p99_ms: e2e.p99_ms, max_ms: e2e.max_ms });
    }
    // SVC_BENCH_MARKS=5000,20000 for a quick run.
    const marks = process.env.SVC_BENCH_MARKS
      ? process.env.SVC_BENCH_MARKS.split(',').map(Number)
      : [5_000, 105_000, 505_000, ...(Number(process.env.SVC_BENCH_FILL ?? 0) >= 1_000_000 ? [1_000_000] : [])];
    for (const b of part('fill') ? bs : []) {
      const f = await fill(b, dns, marks);
      const first = Number(f.rss_5k_mb);
      const last = marks.at(-1)!;
      report(`${b.name}: daemon RSS as the relay fills the store`, {
        ...f,
        [`growth_${last / 1000}k`]: Number(f[`rss_${last / 1000}k_mb`]) / first,
        targets: '505k <= 1.2x, 1M <= 1.3x, restart < 2 s',
      });
    }
    if (part('cli')) await bigStoreCommands(Number(process.env.SVC_BENCH_ROWS ?? 1_000_000));
  } finally {
    sink.child.kill();
    await dns.stop();
  }
}
