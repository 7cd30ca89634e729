// Benchmarks, on each backend (SVC_BENCH_BACKENDS to pick one), through the real daemon:
// - The inbox page (50 threads) and a thread page (4 messages, bodies parsed from the raw mail) with
//   10,000 received items in the workspace (SVC_BENCH_APP_ITEMS) and 10,000 sends beside them
//   (SVC_BENCH_APP_SENT), with a session made in the store
//   as a sign-in makes it:
//   p50 and p99 of 200 requests each, against the same routes answering the same data as JSON
//   (`Accept: application/json`: same session, checks and store reads, no HTML). Taken in turns,
//   one request at a time.
// - 1,000 open event streams (SVC_BENCH_APP_STREAMS; 16 a session, the most one may hold): the daemon's RSS before and after, and the
//   time from one message taken by the MX until every stream has its `inbox` event.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type FixtureDns as FixtureDnsT, FixtureDns } from '../test/helpers/dns-server.js';
import { transact } from '../test/helpers/mx.js';
import { loadConfig, type StoreLocation } from '../src/config.js';
import { openStore } from '../src/store/open.js';
import { silentLog } from '../src/log.js';
import { createService } from '../src/service.js';
import { systemClock, systemRandom } from '../src/clock.js';
import type { InboxItem } from '../src/model/inbox.js';
import { SVC, percentile, report, startServer } from './lib.js';
import { tokenHash } from '../src/people/people.js';
import { SESSION_COOKIE } from '../daemon/http/app/session.js';
import { STREAMS_PER_SESSION } from '../daemon/http/inbox-live.js';
import { chosen, prepare } from './send.js';

const ITEMS = Number(process.env.SVC_BENCH_APP_ITEMS ?? 10_000);
const STREAMS = Number(process.env.SVC_BENCH_APP_STREAMS ?? 1_000);
/** Transactional sends beside them (each a Sent copy in a thread of its own), as a sending workspace has. */
const SENT = Number(process.env.SVC_BENCH_APP_SENT ?? 10_000);
const SAMPLES = 200;
const PER_THREAD = 4;
/** A reply as mail clients send it: text and HTML alternatives, about 2 KB. */
const RAW = Buffer.from(
  [
    'From: Jane <jane@elsewhere.test>',
    'To: hello@acme.test',
    'Subject: Re: Your order',
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Thanks, that helps. '.repeat(40),
    '--b',
    'Content-Type: text/html; charset=utf-8',
    '',
    `<div><p>${'Thanks, that <b>helps</b>. '.repeat(40)}</p><img src="https://tracker.test/p.gif"></div>`,
    '--b--',
    '',
  ].join('\r\n'),
);

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * ITEMS received items in PER_THREAD-item threads of the workspace `bench`, and an owner with
 * `sessions` sessions (a session holds at most STREAMS_PER_SESSION streams): a thread's id and the
 * sessions' cookies.
 */
async function fill(storeUrl: string, sessions: number): Promise<{ thread: string; cookies: string[] }> {
  const loc = loadConfig({ store: storeUrl }, {}).store as StoreLocation;
  const store = await openStore(loc, { role: 'admin', log: silentLog });
  try {
    const ws = (await store.workspaces.getByName('bench'))!;
    const start = Date.now() - 86_400_000;
    let next = 0;
    let some = '';
    const threads = Array.from({ length: Math.ceil(ITEMS / PER_THREAD) }, () => randomUUID());
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < ITEMS) {
          const i = next++;
          const thread = threads[Math.floor(i / PER_THREAD)]!;
          some ||= thread;
          const item: InboxItem = {
            id: randomUUID(),
            workspace_id: ws.id,
            folder: 'inbox',
            kind: i % PER_THREAD ? 'reply' : 'mail',
            thread_id: thread,
            from: `user${i % 500}@elsewhere.test`,
            to: ['hello@acme.test'],
            cc: [],
            subject: `Re: Your order ${Math.floor(i / PER_THREAD)}`,
            message_id: `${i}.${randomUUID()}@elsewhere.test`,
            size: RAW.length,
            message_ref: null,
            note: null,
            created_at: new Date(start + i * 1000).toISOString(),
            in_reply_to: null,
            references: [],
            headers: 'From: Jane <jane@elsewhere.test>',
            text: null,
            html: null,
            envelope: { mail_from: 'jane@elsewhere.test', rcpt_to: ['hello@acme.test'], remote_ip: '127.0.0.1' },
            raw: null,
          };
          await store.inbox.receive({ raw: RAW, items: [item], updates: [], outbox: [], events: [], suppressions: [] });
        }
      }),
    );
    // The sends go through the one pipeline (accepted, not handed off: the daemon runs --no-delivery).
    const service = await createService({
      store,
      config: { ...loadConfig({}, {}), store: loc },
      clock: systemClock,
      random: systemRandom,
      log: silentLog,
    });
    let sent = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < SENT) {
          const i = sent++;
          await service.sendJson(ws, {
            from: 'hello@acme.test',
            to: [`user${i}@example.test`],
            subject: `Your receipt ${i}`,
            body_text: 'Thanks for your order.',
          });
        }
      }),
    );
    const now = new Date();
    const owner = await store.people.add(
      ws.id,
      { id: randomUUID(), email: 'ann@acme.test', name: null, password_hash: null, created_at: now.toISOString(), last_sign_in_at: null },
      'owner',
      null,
      now.toISOString(),
    );
    if (!('id' in owner)) throw new Error('no owner');
    const cookies: string[] = [];
    for (let i = 0; i < sessions; i++) {
      const token = randomBytes(32).toString('base64url');
      await store.people.createSession({
        token_hash: tokenHash(token),
        account_id: owner.id,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
      });
      cookies.push(`${SESSION_COOKIE}=${token}`);
    }
    return { thread: some, cookies };
  } finally {
    await store.close();
  }
}

async function timed(url: string, cookie: string, accept: string): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(url, { headers: { cookie, accept } });
  const body = await r.text();
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${body.slice(0, 200)}`);
  return performance.now() - t0;
}

/** HTML and JSON of one route in turns, one request at a time: p50, p99 and their ratios. */
async function pageFigures(name: string, url: string, cookie: string): Promise<void> {
  const html: number[] = [];
  const json: number[] = [];
  for (let i = 0; i < 20; i++) await Promise.all([timed(url, cookie, 'text/html'), timed(url, cookie, 'application/json')]);
  for (let i = 0; i < SAMPLES; i++) {
    html.push(await timed(url, cookie, 'text/html'));
    json.push(await timed(url, cookie, 'application/json'));
  }
  const f = (x: number) => Math.round(x * 100) / 100;
  report(`  ${name} ms`, {
    html_p50: f(percentile(html, 50)),
    html_p99: f(percentile(html, 99)),
    json_p50: f(percentile(json, 50)),
    json_p99: f(percentile(json, 99)),
    p50_ratio: percentile(html, 50) / percentile(json, 50),
    p99_ratio: percentile(html, 99) / percentile(json, 99),
  });
}

/** STREAMS event streams open on the inbox; RSS before and after, and one arrival's fan-out to all. */
async function streamFigures(api: string, mx: string, pid: number, cookies: string[]): Promise<void> {
  const before = rssMb(pid);
  const ac = new AbortController();
  let opened = 0;
  let told = 0;
  let allTold: () => void = () => {};
  const everyone = new Promise<void>((r) => (allTold = r));
  let allOpen: () => void = () => {};
  const open = new Promise<void>((r) => (allOpen = r));
  const streams = Array.from({ length: STREAMS }, async (_, i) => {
    const r = await fetch(`${api}/app/w/bench/inbox/events`, {
      headers: { cookie: cookies[Math.floor(i / STREAMS_PER_SESSION)]!, accept: 'text/event-stream' },
      signal: ac.signal,
    });
    if (r.status !== 200) throw new Error(`stream ${i}: ${r.status}`);
    const reader = r.body!.getReader();
    let seen = '';
    let counted = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      seen += Buffer.from(value).toString();
      if (!counted && seen.includes('retry:')) {
        counted = true;
        if (++opened === STREAMS) allOpen();
      }
      if (seen.includes('event: inbox')) {
        if (++told === STREAMS) allTold();
        return;
      }
    }
  });
  const deadline = (p: Promise<void>, what: string) =>
    Promise.race([p, new Promise<void>((_, no) => setTimeout(() => no(new Error(`${what} took over 60 s`)), 60_000).unref())]);
  await deadline(open, `${STREAMS} streams opening`);
  await new Promise((r) => setTimeout(r, 1000));
  const after = rssMb(pid);
  const t0 = performance.now();
  const mail = [
    'From: sam@elsewhere.test',
    'To: hello@acme.test',
    'Subject: Live',
    `Message-ID: <${randomUUID()}@elsewhere.test>`,
    '',
    'Hello.',
    '',
  ].join('\r\n');
  const r = await transact(mx, 'sam@elsewhere.test', ['hello@acme.test'], mail);
  if (!r.end.startsWith('250')) throw new Error(`the MX answered ${r.end}`);
  await deadline(everyone, 'the event reaching every stream');
  const fan = performance.now() - t0;
  ac.abort();
  await Promise.allSettled(streams);
  report(`  ${STREAMS} event streams`, {
    rss_before_mb: Math.round(before),
    rss_open_mb: Math.round(after),
    kb_per_stream: ((after - before) * 1024) / STREAMS,
    mail_to_every_stream_ms: Math.round(fan),
  });
}

export async function app(): Promise<void> {
  for (const b of chosen()) {
    const dns: FixtureDnsT = await new FixtureDns().load(['sending.zone']).start();
    const st = await b.fresh();
    report(b.name, {});
    try {
      await prepare(st.store, dns);
      const { thread, cookies } = await fill(st.store, Math.ceil(STREAMS / STREAMS_PER_SESSION));
      const cookie = cookies[0]!;
      const server = await startServer(
        [SVC, 'serve', '--store', st.store, '--api-port', '0', '--relay-port', '0', '--mx-port', '0', '--no-delivery'],
        {},
      );
      try {
        const mx = /mx listening on (\S+)/.exec(server.lines.join('\n'))![1]!;
        report(`  workspace`, { received_items: ITEMS, threads_with_mail: Math.ceil(ITEMS / PER_THREAD), sent_only_threads: SENT });
        await pageFigures('inbox page (50 threads)', `${server.url}/app/w/bench/inbox`, cookie);
        await pageFigures(`thread page (${PER_THREAD} messages)`, `${server.url}/app/w/bench/inbox/t/${thread}`, cookie);
        await streamFigures(server.url, mx, server.child.pid!, cookies);
      } finally {
        await server.stop();
      }
    } finally {
      await dns.stop();
      st.cleanup();
    }
  }
}
