// One harness for the SMTP benchmarks (relay and MX): the shared raw-socket load client
// (../shared/tools/smtp-load.mjs) drives every server of a run in turn, svc's and the yardsticks
// beside it (a bare smtp-server, Postfix's smtp-sink where it is installed), with reused connections
// or one connection per message, and connect-to-greeting times are read the same way for each.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { median } from './lib.js';

/** The shared raw-socket SMTP load client, fast enough not to be the bottleneck. */
export const LOAD = fileURLToPath(new URL('../../shared/tools/smtp-load.mjs', import.meta.url));

/** A server under load: `auth` is the password the client logs in with, null for no AUTH. */
export interface Target {
  name: string;
  port: number;
  auth: string | null;
}

/**
 * Sends n 10 KB messages over 20 connections (`extra`: more of the client's flags: --to, --from,
 * --per-conn 1); messages per second. A refusal or an error fails the run: a rate that counts
 * refused mail measures nothing.
 */
export function drive(target: Pick<Target, 'port' | 'auth'>, n: number, extra: string[] = []): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        LOAD,
        '--port',
        String(target.port),
        ...(target.auth ? ['--auth', target.auth] : []),
        '--conns',
        '20',
        '--messages',
        String(n),
        '--size',
        '10240',
        ...extra,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
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
export async function inTurns(
  targets: readonly Target[],
  rounds: number,
  n: number,
  extra: string[] = [],
): Promise<Array<Record<string, number>>> {
  const out: Array<Record<string, number>> = [];
  for (let round = 1; round <= rounds; round++) {
    const rate: Record<string, number> = {};
    for (let k = 0; k < targets.length; k++) {
      const t = targets[(round + k) % targets.length]!;
      rate[t.name] = await drive(t, n, extra);
    }
    out.push(rate);
  }
  return out;
}

/** Median milliseconds from connect to the greeting's first line, over `n` connections one after another (each closed with QUIT). */
export async function greetingMs(port: number, n = 100): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    times.push(
      await new Promise<number>((resolve, reject) => {
        const t0 = performance.now();
        const sock = connect(port, '127.0.0.1');
        const timer = setTimeout(() => (sock.destroy(), reject(new Error(`no greeting on port ${port} within 10 s`))), 10_000);
        sock.once('error', reject);
        sock.once('data', () => {
          const ms = performance.now() - t0;
          clearTimeout(timer);
          sock.end('QUIT\r\n');
          sock.once('close', () => resolve(ms));
        });
      }),
    );
  }
  return median(times);
}

/** A free loopback port (for a server that cannot be told port 0 and report what it got). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const SMTP_SINK = ['/usr/sbin/smtp-sink', '/usr/lib/postfix/sbin/smtp-sink'].find((p) => existsSync(p));

/**
 * Postfix's smtp-sink on loopback, or why there is none (driven without AUTH: it answers AUTH with
 * 250, not 235, which no client takes for a login). It is
 * what Postfix itself measures SMTP clients against: the protocol and nothing else.
 */
export async function postfixSink(): Promise<{ port: number; stop(): void } | { skipped: string }> {
  if (!SMTP_SINK) return { skipped: 'Postfix smtp-sink is not installed (apt-get install postfix)' };
  const port = await freePort();
  // As root it must be told whom to run as; backlog 256 for 20 clients reconnecting at once.
  const root = process.getuid?.() === 0;
  const child: ChildProcess = spawn(SMTP_SINK, [...(root ? ['-u', 'nobody'] : []), `127.0.0.1:${port}`, '256'], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      return {
        skipped: `smtp-sink did not start on port ${port} (${spawnSync(SMTP_SINK, []).stderr?.toString().trim().split('\n')[0] ?? 'no reason given'})`,
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { port, stop: () => child.kill() };
}
