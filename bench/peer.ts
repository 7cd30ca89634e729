// svc against its peer, end to end. Postfix with OpenDKIM as a milter (a private
// Postfix instance on a loopback port with its own queue directory, a 2048-bit key, relaxed/relaxed)
// and the svc relay, driven by the same raw-socket client with the same 10 KB messages, both
// delivering to one counting sink, alternated twice in one run. A run's rate is its messages over
// the time from the client's start to the sink's receipt of the last; CPU per message counts every
// process of each side (svc's daemon; Postfix's master, its children and OpenDKIM). Target: svc at
// least 2x Postfix + OpenDKIM, with svc's main thread no longer the limit (its busy share printed).
// Skipped, saying why, where Postfix, OpenDKIM or root is missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, postfixUnavailable, startPostfix } from '../test/helpers/postfix.js';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { SVC, benchChild, median, report, startServer, statCpu } from './lib.js';
import { backends, prepare, profile } from './send.js';
import { LOAD, drive, type Target } from './smtp-harness.js';

const OPENDKIM = '/usr/sbin/opendkim';
const N = Number(process.env.SVC_BENCH_PEER_N ?? 3000);

/** CPU seconds of a process and its exited children (utime, stime, cutime, cstime). */
function cpuWithChildren(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return (
    stat
      .slice(stat.lastIndexOf(') ') + 2)
      .split(' ')
      .slice(11, 15)
      .reduce((a, b) => a + Number(b), 0) / 100
  );
}

/** Pids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]) === pid) out.push(Number(p));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** Postfix's CPU so far: the master with its exited children, plus the children alive now. */
function postfixCpu(master: number, live: Map<number, number>): number {
  let total = cpuWithChildren(master);
  for (const c of childrenOf(master)) {
    try {
      live.set(c, statCpu(`/proc/${c}/stat`));
    } catch {
      /* exited: in the master's cutime from now on */
    }
  }
  for (const v of live.values()) total += v;
  return total;
}

/** OpenDKIM as a milter on a loopback port, signing acme.test with a fresh 2048-bit key, relaxed/relaxed. */
async function startOpenDkim(dir: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  writeFileSync(join(dir, 'peer.private'), key, { mode: 0o600 });
  const uid = Number(spawnSync('id', ['-u', 'opendkim'], { encoding: 'utf8' }).stdout.trim());
  if (Number.isInteger(uid)) chownSync(join(dir, 'peer.private'), uid, 0);
  writeFileSync(
    join(dir, 'opendkim.conf'),
    [
      'Syslog no',
      'Mode s',
      'Domain acme.test',
      'Selector peer',
      `KeyFile ${join(dir, 'peer.private')}`,
      'Canonicalization relaxed/relaxed',
      'SignatureAlgorithm rsa-sha256',
      `Socket inet:${port}@127.0.0.1`,
      ...(Number.isInteger(uid) ? ['UserID opendkim'] : []),
      'RequireSafeKeys no',
      '',
    ].join('\n'),
  );
  const child = spawn(OPENDKIM, ['-f', '-x', join(dir, 'opendkim.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100; i++) {
    if (
      await new Promise<boolean>((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve(true)));
        s.once('error', () => resolve(false));
      })
    )
      return { port, child };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error('opendkim did not start listening');
}

export async function peer(): Promise<void> {
  const why =
    postfixUnavailable() ??
    (existsSync(OPENDKIM) ? null : 'OpenDKIM is not installed (apt-get install opendkim)') ??
    (existsSync(LOAD) ? null : `the load client ${LOAD} is not there`);
  if (why) {
    process.stdout.write(`peer: skipped, ${why}\n`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-peer-'));
  const cleanups: Array<() => unknown> = [];
  const sink = await benchChild('./sink-process.ts');
  const dns = await new FixtureDns().load(['sending.zone']).start();
  const st = await backends[0]!.fresh();
  try {
    const dkim = await startOpenDkim(dir);
    cleanups.push(() => dkim.child.kill());
    const postfix = await startPostfix(
      { after: (fn) => void cleanups.push(fn) },
      {
        port: await freePort(),
        relay: sink.port,
        milter: dkim.port,
        extra: [
          'smtp_tls_security_level = none',
          'delay_warning_time = 0',
          'default_destination_concurrency_limit = 20',
          'smtpd_client_connection_count_limit = 0',
          'smtpd_client_connection_rate_limit = 0',
        ],
      },
    );
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
      '--outbound',
      `smtp://127.0.0.1:${sink.port}`,
    ]);
    cleanups.push(() => daemon.stop());
    const relayPort = Number(/relay listening on smtp:\/\/[^:]+:(\d+)/.exec(daemon.lines.join('\n'))?.[1]);
    const pid = daemon.child.pid!;
    const live = new Map<number, number>();
    const sides: Array<Target & { cpu(): number; main?(): number }> = [
      {
        name: 'svc',
        port: relayPort,
        auth: key,
        cpu: () => statCpu(`/proc/${pid}/stat`),
        main: () => statCpu(`/proc/${pid}/task/${pid}/stat`),
      },
      {
        name: 'postfix',
        port: postfix.port,
        auth: null,
        cpu: () => postfixCpu(postfix.pid()!, live) + statCpu(`/proc/${dkim.child.pid}/stat`),
      },
    ];
    /** One run: N messages through `side`, timed to the sink's receipt of the last. */
    const run = async (side: (typeof sides)[number], n: number) => {
      const before = sink.count();
      const cpu0 = side.cpu();
      const main0 = side.main?.() ?? 0;
      const t0 = performance.now();
      await drive(side, n);
      const deadline = Date.now() + 300_000;
      while (sink.count() < before + n) {
        if (Date.now() > deadline)
          throw new Error(`${side.name}: ${sink.count() - before} of ${n} reached the sink in 5 minutes\n${postfix.log().slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const seconds = (performance.now() - t0) / 1000;
      const main = (side.main?.() ?? 0) - main0;
      return { rate: n / seconds, cpuMs: ((side.cpu() - cpu0) * 1000) / n, mainMs: (main * 1000) / n, mainBusy: main / seconds };
    };
    // Both warmed (JIT, connections, Postfix's processes) before anything is measured.
    for (const side of sides) await run(side, 500);
    const rounds: Array<Record<string, Awaited<ReturnType<typeof run>>>> = [];
    for (let round = 0; round < 2; round++) {
      const out: Record<string, Awaited<ReturnType<typeof run>>> = {};
      for (const side of round % 2 ? [...sides].reverse() : sides) out[side.name] = await run(side, N);
      rounds.push(out);
      report(`  round ${round + 1}`, {
        svc_per_s: Math.round(out.svc!.rate),
        postfix_per_s: Math.round(out.postfix!.rate),
        svc_cpu_ms_per_msg: Number(out.svc!.cpuMs.toFixed(2)),
        postfix_cpu_ms_per_msg: Number(out.postfix!.cpuMs.toFixed(2)),
        svc_main_thread_ms_per_msg: Number(out.svc!.mainMs.toFixed(2)),
        svc_main_thread_busy: Number(out.svc!.mainBusy.toFixed(2)),
      });
    }
    report('svc relay vs Postfix + OpenDKIM, end to end to one sink, DKIM-signed (file store)', {
      of_postfix: median(rounds.map((r) => r.svc!.rate / r.postfix!.rate)),
      svc_main_thread_busy: median(rounds.map((r) => r.svc!.mainBusy)),
      messages_per_run: N,
      target: '>= 2x, main thread not the limit',
    });
  } finally {
    for (const c of cleanups.reverse()) await c();
    sink.child.kill();
    await dns.stop();
    st.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}
