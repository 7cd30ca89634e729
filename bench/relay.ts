// The relay's benchmarks: messages/s next to yardsticks in the same run, and what very
// large messages cost in memory.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { SVC, benchChild, exitedChildrenCpu, median, report, startServer, statCpu } from './lib.js';
import { backends, chosen, prepare, profile } from './send.js';
import { LOAD, drive, greetingMs, inTurns, postfixSink, type Target } from './smtp-harness.js';

/**
 * The relay next to its yardsticks, one client, one run. Every server is driven
 * in turn (three rounds, each starting with another) with 20 reused connections and then with one
 * connection per message (connect, EHLO, AUTH, one message, QUIT): a bare smtp-server that accepts
 * and discards (AUTH taken), Postfix's smtp-sink where it is installed, and the svc relay queueing
 * durably (250 after the store has it), on each backend. Targets: reused at least 0.75 of the bare
 * server on the file store and 0.5 on Postgres; one connection per message at least 0.5 of
 * smtp-sink. Then the median connect-to-greeting time of each listener (the MX keeps the 100 ms
 * early-talker pause; the relay has none).
 */
export async function relay(): Promise<void> {
  if (!existsSync(LOAD)) {
    process.stdout.write(`relay: skipped, the load client ${LOAD} is not there\n`);
    return;
  }
  const bare = await benchChild('./sink-process.ts', ['--auth']);
  // The least a server that keeps each message before its 250 pays here: the bare server appending
  // to a file with group-committed fdatasyncs, nothing of svc's (the relay's own target is a share
  // of the bare server, so this says how much of that share durability alone takes on this disk).
  const spool = mkdtempSync(join(tmpdir(), 'svc-bench-durable-'));
  const durable = await benchChild('./sink-process.ts', ['--auth', '--fsync', join(spool, 'received.mbox')]);
  // One connection per message: the bare server greets at once too, as the relay does.
  const noPause = await benchChild('./sink-process.ts', ['--auth', '--no-pause']);
  const postfix = await postfixSink();
  if ('skipped' in postfix) process.stdout.write(`relay: Postfix yardstick skipped: ${postfix.skipped}\n`);
  const sink: Target[] = 'port' in postfix ? [{ name: 'postfix', port: postfix.port, auth: null }] : [];
  const yardsticks: Target[] = [
    { name: 'bare', port: bare.port, auth: 'any' },
    { name: 'durable', port: durable.port, auth: 'any' },
    ...sink,
  ];
  const perConnYardsticks: Target[] = [{ name: 'bare', port: noPause.port, auth: 'any' }, ...sink];
  try {
    for (const b of chosen()) {
      const file = b.name === 'file store';
      await withRelay(
        async ({ relayPort, mxPort, key, pid }) => {
          const targets: Target[] = [...yardsticks, { name: 'relay', port: relayPort, auth: key }];
          // The daemon's CPU (all its threads) and its main thread's, per relayed message: the daemon
          // is idle while the yardsticks take their turns, so what it spends in a run is the relay's.
          const cpu = () => ({ all: statCpu(`/proc/${pid}/stat`), main: statCpu(`/proc/${pid}/task/${pid}/stat`) });
          const perMessage = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>, n: number) => ({
            daemon_cpu_ms_per_msg: Number((((b.all - a.all) * 1000) / n).toFixed(3)),
            main_thread_ms_per_msg: Number((((b.main - a.main) * 1000) / n).toFixed(3)),
          });
          // All warmed alike (JIT, connections, the store's first writes) before anything is measured.
          for (const t of targets) await drive(t, 1000);
          const line = (rate: Record<string, number>) =>
            Object.fromEntries(Object.entries(rate).map(([k, v]) => [`${k}_per_s`, Math.round(v)]));
          const c0 = cpu();
          const client0 = exitedChildrenCpu();
          const reused = await inTurns(targets, 3, 5000);
          const c1 = cpu();
          const clientMs = ((exitedChildrenCpu() - client0) * 1000) / (3 * 5000 * targets.length);
          reused.forEach((rate, i) => report(`  ${b.name}, reused connections, round ${i + 1}`, line(rate)));
          report(`svc relay, 20 reused connections, queued durably (${b.name}) vs bare smtp-server`, {
            of_bare: median(reused.map((r) => r.relay! / r.bare!)),
            durable_bare_of_bare: median(reused.map((r) => r.durable! / r.bare!)),
            ...('port' in postfix ? { of_postfix_sink: median(reused.map((r) => r.relay! / r.postfix!)) } : {}),
            target: file ? '>= 0.75 of bare' : '>= 0.5 of bare',
            ...perMessage(c0, c1, 3 * 5000),
          });
          // What two cores allow at most with the relay's CPU per message as measured, were every
          // cycle of both spent on it and the client (none idle, no thread waiting for another).
          const relayMs = perMessage(c0, c1, 3 * 5000).daemon_cpu_ms_per_msg;
          report(`  two-core ceiling of the relay at its measured CPU (${b.name})`, {
            client_cpu_ms_per_msg: Number(clientMs.toFixed(3)),
            ceiling_per_s: Math.round(2000 / (relayMs + clientMs)),
            ceiling_of_bare: Number((2000 / (relayMs + clientMs) / median(reused.map((r) => r.bare!))).toFixed(2)),
          });
          const single = await inTurns([...perConnYardsticks, { name: 'relay', port: relayPort, auth: key }], 3, 2000, ['--per-conn', '1']);
          const c2 = cpu();
          single.forEach((rate, i) => report(`  ${b.name}, one connection per message, round ${i + 1}`, line(rate)));
          report(`svc relay, one connection per message (${b.name}) vs Postfix smtp-sink`, {
            ...('port' in postfix
              ? {
                  of_postfix_sink: median(single.map((r) => r.relay! / r.postfix!)),
                  bare_no_pause_of_postfix_sink: median(single.map((r) => r.bare! / r.postfix!)),
                }
              : { of_postfix_sink: 'skipped' }),
            of_bare_no_pause: median(single.map((r) => r.relay! / r.bare!)),
            target: '>= 0.5 of smtp-sink',
            ...perMessage(c1, c2, 3 * 2000),
          });
          if (!file) return;
          const greet: Record<string, number> = {};
          for (const [name, port] of [
            ['relay', relayPort],
            ['mx', mxPort],
            ['bare', bare.port],
            ...('port' in postfix ? [['postfix', postfix.port] as const] : []),
          ] as const)
            greet[`${name}_ms`] = Number((await greetingMs(port)).toFixed(2));
          report('median connect-to-greeting, 100 connections one after another', greet);
        },
        b,
        ['--no-delivery'],
      );
    }
  } finally {
    for (const c of [bare, durable, noPause]) c.child.kill();
    rmSync(spool, { recursive: true, force: true });
    if ('port' in postfix) postfix.stop();
  }
}

/** A daemon (by default one that only accepts: --no-delivery) on a fresh store of `backend` with a verified sender. */
export async function withRelay(
  fn: (d: { relayPort: number; mxPort: number; key: string; pid: number }) => Promise<void>,
  backend = backends[0]!,
  serveArgs: string[] = ['--no-delivery'],
): Promise<void> {
  const st = await backend.fresh();
  const dns = await new FixtureDns().load(['sending.zone']).start();
  try {
    const key = await prepare(st.store, dns);
    const daemon = await startServer([
      ...profile(),
      SVC,
      'serve',
      '--store',
      st.store,
      '--api-port',
      '0',
      '--relay-port',
      '0',
      '--mx-port',
      '0',
      ...serveArgs,
    ]);
    try {
      const port = (name: string) => Number(new RegExp(`${name} listening on smtp://[^:]+:(\\d+)`).exec(daemon.lines.join('\n'))?.[1]);
      await fn({ relayPort: port('relay'), mxPort: port('mx'), key, pid: daemon.child.pid! });
    } finally {
      await daemon.stop();
    }
  } finally {
    await dns.stop();
    st.cleanup();
  }
}

/** The daemon's peak RSS (VmHWM) in MB. */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * Bounded resources: what 24.8 MB relay messages cost the daemon in memory, one alone
 * and several at once, and how many of the concurrent ones the data-memory cap defers (451 4.3.1).
 */
export async function relayMemory(): Promise<void> {
  const big = 'Subject: big\r\nTo: jane@rcpt.test\r\n\r\n' + ('x'.repeat(998) + '\r\n').repeat(24_800);
  const send = async (relayPort: number, key: string, n: number) => {
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port: relayPort,
      secure: false,
      ignoreTLS: true,
      auth: { user: 'bench', pass: key },
    });
    const results = await Promise.allSettled(
      Array.from({ length: n }, () => t.sendMail({ envelope: { from: 'hello@acme.test', to: ['jane@rcpt.test'] }, raw: big })),
    );
    t.close();
    return {
      accepted: results.filter((r) => r.status === 'fulfilled').length,
      deferred_451: results.filter((r) => r.status === 'rejected' && /451 4\.3\.1/.test(String(r.reason))).length,
    };
  };
  for (const concurrent of [1, 3]) {
    await withRelay(async ({ relayPort, key, pid }) => {
      const before = peakRssMb(pid);
      const t0 = performance.now();
      const r = await send(relayPort, key, concurrent);
      report(`relay, ${concurrent} x 24.8 MB at once, accepted only`, {
        ...r,
        seconds: ((performance.now() - t0) / 1000).toFixed(1),
        daemon_rss_before_mb: Math.round(before),
        daemon_peak_rss_mb: Math.round(peakRssMb(pid)),
      });
    });
  }
  // The same three, accepted and then composed, signed and handed to a loopback smarthost.
  const { child: sink, port, count } = await benchChild('./sink-process.ts');
  try {
    await withRelay(
      async ({ relayPort, key, pid }) => {
        const before = peakRssMb(pid);
        const t0 = performance.now();
        const r = await send(relayPort, key, 3);
        while (count() < r.accepted && performance.now() - t0 < 300_000) await new Promise((res) => setTimeout(res, 50));
        report('relay, 3 x 24.8 MB at once, accepted and delivered', {
          ...r,
          delivered: count(),
          seconds: ((performance.now() - t0) / 1000).toFixed(1),
          daemon_rss_before_mb: Math.round(before),
          daemon_peak_rss_mb: Math.round(peakRssMb(pid)),
        });
      },
      backends[0],
      ['--outbound', `smtp://127.0.0.1:${port}`],
    );
  } finally {
    sink.kill();
  }
}
