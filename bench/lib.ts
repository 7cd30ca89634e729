// Shared pieces of the benchmarks: child processes, load, and figures.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const SVC = fileURLToPath(new URL('../bin/svc', import.meta.url));

/** A helper process of the benchmarks (a sink, a webhook receiver) and what it prints: `port N` once, then `count N` and `hit ...` lines. */
export interface BenchChild {
  child: ChildProcess;
  port: number;
  /** The last `count` it printed (messages or requests received). */
  count(): number;
  hits: Array<[string, number]>;
}

/** Starts bench/FILE (a .ts run with tsx) with `args`; resolves once it printed its port. */
export function benchChild(file: string, args: string[] = []): Promise<BenchChild> {
  const c = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url)), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let count = 0;
  const hits: Array<[string, number]> = [];
  return new Promise((resolve, reject) => {
    c.once('exit', (code) => reject(new Error(`${file} exited ${code} before printing its port`)));
    createInterface({ input: c.stdout! }).on('line', (l) => {
      const [k, v, w] = l.split(' ');
      if (k === 'port') resolve({ child: c, port: Number(v), count: () => count, hits });
      if (k === 'count') count = Number(v);
      if (k === 'hit') hits.push([v!, Number(w)]);
    });
  });
}

/**
 * Two runs measured in pairs, `rounds` times, each pair starting with the other run than the last,
 * so that the machine's drift (a third from one minute to the next here) favours neither: each
 * pair's results.
 */
export async function alternatedPairs<A, B>(rounds: number, a: () => Promise<A>, b: () => Promise<B>): Promise<Array<{ a: A; b: B }>> {
  const pairs: Array<{ a: A; b: B }> = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2) {
      const second = await b();
      pairs.push({ a: await a(), b: second });
    } else {
      const first = await a();
      pairs.push({ a: first, b: await b() });
    }
  }
  return pairs;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** The nearest-rank percentile: the smallest value with at least p % of them at or below it (p99 of 100 is the 99th, not the slowest). */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** CPU seconds (user + system) in a /proc stat file, of a process or of one of its threads. */
export function statCpu(path: string): number {
  const stat = readFileSync(path, 'utf8');
  return (
    stat
      .slice(stat.lastIndexOf(') ') + 2)
      .split(' ')
      .slice(11, 13)
      .reduce((a, b) => a + Number(b), 0) / 100
  );
}

/**
 * CPU seconds of this process's children that have exited and been waited for (cutime + cstime of
 * /proc/self/stat): across a run of a load client, what the client cost, the servers still running.
 */
export function exitedChildrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return (
    stat
      .slice(stat.lastIndexOf(') ') + 2)
      .split(' ')
      .slice(13, 15)
      .reduce((a, b) => a + Number(b), 0) / 100
  );
}

export function svcSync(args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [SVC, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Starts a server process and resolves with its API URL once it printed its ready line. */
export function startServer(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess; lines: string[]; stop(): Promise<void> }> {
  // Benchmarks measure throughput: the per-key rate limit is out of the way.
  const child = spawn(process.execPath, args, {
    env: { ...process.env, SVC_RATE_LIMIT: '1000000', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      // Flags such as --trace-gc (SVC_BENCH_NODE_ARGS, send.ts profile()) print on the server's stdout.
      if (process.env.SVC_BENCH_NODE_ARGS) process.stderr.write(`[server] ${line}\n`);
      // The daemon prints the API line first, then the relay's and the MX's: wait for the last listener.
      const m = /api listening on (\S+)/.exec(lines.join('\n'));
      const all = !args.includes('serve') || lines.some((l) => / mx listening /.test(l));
      if (m && all)
        resolve({
          url: m[1]!,
          child,
          lines,
          stop: () =>
            new Promise((r) => {
              child.removeAllListeners('exit');
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
    });
  });
}

export async function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return autocannon({ connections: 50, ...(opts.amount ? {} : { duration: 5 }), ...opts });
}

export function report(name: string, figures: Record<string, string | number>): void {
  const parts = Object.entries(figures).map(([k, v]) => `${k}=${typeof v === 'number' ? (Number.isInteger(v) ? v : v.toFixed(2)) : v}`);
  process.stdout.write(`${name.padEnd(34)} ${parts.join('  ')}\n`);
}
