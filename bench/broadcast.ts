// Benchmarks, on each backend (SVC_BENCH_BACKENDS to pick one):
// - a broadcast to 100,000 subscribers queued: from POST /lists/:id/broadcast until every copy is a
//   durable message record (the campaign fanned out), on a daemon that does not hand off
//   (--no-delivery), so the figure is the queueing alone (target under 10 s);
// - copies handed off a second to a loopback sink (a smarthost) by a daemon started on those
//   queued copies, against the compose + DKIM ceiling of two threads measured in the same run
//   (target >= 0.5);
// - transactional POST /emails to hand-off latency (accepted until its record says sent, polled
//   every 5 ms), p50/p99 on the idle daemon and while the broadcast's copies are handed off
//   (target p99 within 2x of idle), each after 5 sends not counted (a new process's first sends
//   are slow whatever it does);
// - the daemons' peak RSS through all of it (target under 400 MB).
// SVC_BENCH_CONCURRENCY sets the daemons' --delivery-concurrency (default 64).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { SVC, benchChild, percentile, report, startServer, svcSync } from './lib.js';
import { ceilingFigures, chosen, prepare, profile } from './send.js';

const N = Number(process.env.SVC_BENCH_BROADCAST_N ?? 100_000);
const HANDOFF_WINDOW_MS = Number(process.env.SVC_BENCH_BROADCAST_WINDOW_MS ?? 15_000);
/** Transactional sends timed in each phase, one every ~115 ms: 100 fit the hand-off window, and their p99 is not just the slowest one. */
const SAMPLES = Number(process.env.SVC_BENCH_BROADCAST_SAMPLES ?? 100);
const HTML = `<p>Hi {{first_name|there}},</p>${'<p>News of the month, with a <a href="https://example.com/read">link to read more</a>.</p>'.repeat(40)}<p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>`;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Samples a process's RSS every 100 ms until stopped; the peak. */
function peakRss(pid: number): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      /* gone */
    }
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

/** POST /emails of one message, then its record polled until sent: milliseconds. */
async function handOffMs(url: string, key: string, i: number): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`${url}/api/v2/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: 'hello@acme.test', to: [`reset${i}@rcpt.test`], subject: 'Your code', body_text: `code ${i}` }),
  });
  const { id } = (await r.json()) as { id: string };
  for (;;) {
    const m = (await fetch(`${url}/api/v2/messages/${id}`, { headers: { authorization: `Bearer ${key}` } }).then((x) => x.json())) as {
      status: string;
    };
    if (m.status !== 'queued') return performance.now() - t0;
    if (performance.now() - t0 > 60_000) throw new Error('a transactional send waited over 60 s');
    await new Promise((res) => setTimeout(res, 5));
  }
}

async function latencies(url: string, key: string, n: number, from: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(await handOffMs(url, key, from + i));
    await new Promise((res) => setTimeout(res, 100));
  }
  return out;
}

export async function broadcast(): Promise<void> {
  const { compose } = await ceilingFigures();
  for (const b of chosen()) {
    const dns = await new FixtureDns().load(['sending.zone']).start();
    const st = await b.fresh();
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-bc-'));
    const sink = await benchChild('./sink-process.ts');
    report(b.name, {});
    try {
      const store = st.store;
      await prepare(store, dns);
      const key = JSON.parse(
        svcSync(['--store', store, 'keys', 'create', '--workspace', 'bench', '--scopes', 'send,read,newsletter', '--json']),
      ).key as string;
      const list = JSON.parse(
        svcSync(['--store', store, 'lists', 'create', 'Bench', '--workspace', 'bench', '--from-address', 'hello@acme.test', '--json']),
      ).id as string;
      const csv = join(dir, 'subs.csv');
      writeFileSync(
        csv,
        ['email,name', ...Array.from({ length: N }, (_, i) => `user${i}@example${i % 50}.test,Name ${i}`)].join('\n') + '\n',
      );
      svcSync(['--store', store, 'subscribers', 'import', list, csv, '--workspace', 'bench', '--json']);
      const serveArgs = [
        ...profile(),
        SVC,
        'serve',
        '--store',
        store,
        '--api-port',
        '0',
        '--relay-port',
        '0',
        '--mx-port',
        '0',
        '--outbound',
        `smtp://127.0.0.1:${sink.port}`,
        '--delivery-concurrency',
        process.env.SVC_BENCH_CONCURRENCY ?? '64',
      ];

      // Idle: transactional hand-off latency with nothing else to do.
      const idle = await startServer(serveArgs);
      let rss = peakRss(idle.child.pid!);
      await latencies(idle.url, key, 5, 0);
      const calm = await latencies(idle.url, key, SAMPLES, 100);
      let peak = rss.stop();
      await idle.stop();

      // Queueing alone: the broadcast's copies made, no hand-off.
      const queue = await startServer([...serveArgs, '--no-delivery']);
      rss = peakRss(queue.child.pid!);
      const t0 = performance.now();
      const r = await fetch(`${queue.url}/api/v2/lists/${list}/broadcast`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'Monthly news', body_html: HTML, preheader: 'This month' }),
      });
      const { campaign_id } = (await r.json()) as { campaign_id: string };
      const answered = performance.now() - t0;
      // Watched through the API (every copy is a message record): a CLI process per look would take
      // a core from the daemon.
      for (;;) {
        const page = (await fetch(`${queue.url}/api/v2/messages?limit=1`, { headers: { authorization: `Bearer ${key}` } }).then((x) =>
          x.json(),
        )) as { total: number };
        if (page.total >= N) break;
        if (performance.now() - t0 > 300_000) throw new Error('fan-out took over 5 minutes');
        await new Promise((res) => setTimeout(res, 100));
      }
      const queued = (performance.now() - t0) / 1000;
      const c = JSON.parse(svcSync(['--store', store, 'broadcasts', 'show', campaign_id, '--workspace', 'bench', '--json'])) as {
        copies: number;
      };
      if (c.copies !== N) throw new Error(`${c.copies} copies of ${N}`);
      peak = Math.max(peak, rss.stop());
      await queue.stop();
      report('  broadcast queued', { subscribers: N, answered_202_ms: Math.round(answered), every_copy_stored_s: queued, target_s: 10 });

      // Hand-off of the queued copies, with transactional sends among them.
      const send = await startServer(serveArgs);
      rss = peakRss(send.child.pid!);
      const c0 = sink.count();
      const h0 = performance.now();
      // Warmed up as the idle daemon was (5 sends not counted): a reset's cost in a broadcast, not a
      // fresh process's first send.
      const busy = latencies(send.url, key, 5, 900).then(() => latencies(send.url, key, SAMPLES, 1000));
      await new Promise((res) => setTimeout(res, HANDOFF_WINDOW_MS));
      const rate = ((sink.count() - c0) * 1000) / (performance.now() - h0);
      const during = await busy;
      peak = Math.max(peak, rss.stop());
      await send.stop();
      report('  copies handed off', {
        per_s: Math.round(rate),
        compose_ceiling_per_s: Math.round(compose),
        of_ceiling: rate / compose,
        target: '>= 0.5',
      });
      report('  transactional hand-off ms', {
        idle_p50: percentile(calm, 50),
        idle_p99: percentile(calm, 99),
        during_p50: percentile(during, 50),
        during_p99: percentile(during, 99),
        during_max: Math.round(Math.max(...during)),
        p99_ratio: percentile(during, 99) / percentile(calm, 99),
        target: '<= 2',
      });
      report('  daemon peak rss', { mb: Math.round(peak), target_mb: 400 });
    } finally {
      sink.child.kill();
      st.cleanup();
      rmSync(dir, { recursive: true, force: true });
      await dns.stop();
    }
  }
}
