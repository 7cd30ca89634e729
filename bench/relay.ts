// Issue 6 benchmark: relay messages/s (10 KB messages, 20 concurrent authenticated sessions,
// accepted to "250 OK: queued") next to a bare smtp-server that accepts and discards the same load,
// driven by the same client in the same run. Target: at least 50% of that ceiling.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { FixtureDns } from '../test/helpers/dns-server.js';
import { SVC, benchChild, report, startServer } from './lib.js';
import { prepare, profile } from './send.js';

/** The shared raw-socket SMTP load client (../shared/tools/smtp-load.mjs), fast enough not to be the bottleneck. */
export const LOAD = fileURLToPath(new URL('../../shared/tools/smtp-load.mjs', import.meta.url));

/**
 * Sends n 10 KB messages over 20 connections with the load client (authenticated with `key`, or
 * not when it is null; `extra`: more of its flags, --to and --from); messages per second.
 */
export function drive(port: number, key: string | null, n: number, extra: string[] = []): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOAD, '--port', String(port), ...(key ? ['--auth', key] : []), '--conns', '20', '--messages', String(n), '--size', '10240', ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      try {
        const r = JSON.parse(out.trim().split('\n').at(-1)!) as { messages_per_s: number; refused: number; errors: number };
        if (r.refused || r.errors) return reject(new Error(`load client: ${out.trim()}`));
        resolve(r.messages_per_s);
      } catch {
        reject(new Error(`load client printed: ${out}`));
      }
    });
  });
}

/**
 * Servers driven in turn by the same client, `rounds` times, each round starting with another of
 * them so that the machine's drift (its speed moves by a third from minute to minute) favours none:
 * each round's rates by server name.
 */
export async function inTurns(servers: ReadonlyArray<{ name: string; port: number }>, rounds: number, n: number, extra: string[]): Promise<Array<Record<string, number>>> {
  const out: Array<Record<string, number>> = [];
  for (let round = 1; round <= rounds; round++) {
    const rate: Record<string, number> = {};
    for (let k = 0; k < servers.length; k++) {
      const s = servers[(round + k) % servers.length]!;
      rate[s.name] = await drive(s.port, null, n, extra);
    }
    out.push(rate);
  }
  return out;
}

export async function relay(): Promise<void> {
  const { child: sink, port } = await benchChild('./sink-process.ts', ['--auth']);
  if (!existsSync(LOAD)) {
    process.stdout.write(`relay: skipped, the load client ${LOAD} is not there\n`);
    sink.kill();
    return;
  }
  await drive(port, 'any', 500);
  const bare = await drive(port, 'any', 5000);
  sink.kill();
  report('bare smtp-server, accept and discard (same client)', { messages_per_s: Math.round(bare), sessions: 20 });

  await withRelay(async ({ relayPort, key }) => {
    await drive(relayPort, key, 500);
    const rate = await drive(relayPort, key, 5000);
    report('svc relay, accepted and queued (file store)', { messages_per_s: Math.round(rate), of_ceiling: rate / bare, target: '>= 0.5' });
  });
}

/** A daemon (by default one that only accepts: --no-delivery) on a fresh file store with a verified sender. */
async function withRelay(fn: (d: { relayPort: number; key: string; pid: number }) => Promise<void>, serveArgs: string[] = ['--no-delivery']): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const dns = await new FixtureDns().load(['sending.zone']).start();
  try {
    const key = await prepare(`file:${dir}`, dns);
    const daemon = await startServer([...profile(), SVC, 'serve', '--store', `file:${dir}`, '--api-port', '0', '--relay-port', '0', '--mx-port', '0', ...serveArgs]);
    try {
      const relayPort = Number(/relay listening on smtp:\/\/[^:]+:(\d+)/.exec(daemon.lines.join('\n'))?.[1]);
      await fn({ relayPort, key, pid: daemon.child.pid! });
    } finally {
      await daemon.stop();
    }
  } finally {
    await dns.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The daemon's peak RSS (VmHWM) in MB. */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * Issue 13 "bounded resources": what 24.8 MB relay messages cost the daemon in memory, one alone
 * and several at once, and how many of the concurrent ones the data-memory cap defers (451 4.3.1).
 */
export async function relayMemory(): Promise<void> {
  const big = 'Subject: big\r\nTo: jane@rcpt.test\r\n\r\n' + ('x'.repeat(998) + '\r\n').repeat(24_800);
  const send = async (relayPort: number, key: string, n: number) => {
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: relayPort, secure: false, ignoreTLS: true, auth: { user: 'bench', pass: key } });
    const results = await Promise.allSettled(Array.from({ length: n }, () => t.sendMail({ envelope: { from: 'hello@acme.test', to: ['jane@rcpt.test'] }, raw: big })));
    t.close();
    return { accepted: results.filter((r) => r.status === 'fulfilled').length, deferred_451: results.filter((r) => r.status === 'rejected' && /451 4\.3\.1/.test(String(r.reason))).length };
  };
  for (const concurrent of [1, 3]) {
    await withRelay(async ({ relayPort, key, pid }) => {
      const before = peakRssMb(pid);
      const t0 = performance.now();
      const r = await send(relayPort, key, concurrent);
      report(`relay, ${concurrent} x 24.8 MB at once, accepted only`, { ...r, seconds: ((performance.now() - t0) / 1000).toFixed(1), daemon_rss_before_mb: Math.round(before), daemon_peak_rss_mb: Math.round(peakRssMb(pid)) });
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
        report('relay, 3 x 24.8 MB at once, accepted and delivered', { ...r, delivered: count(), seconds: ((performance.now() - t0) / 1000).toFixed(1), daemon_rss_before_mb: Math.round(before), daemon_peak_rss_mb: Math.round(peakRssMb(pid)) });
      },
      ['--outbound', `smtp://127.0.0.1:${port}`],
    );
  } finally {
    sink.kill();
  }
}
