// Commands as a user runs them: svc() in this process through the commands' main (run.ts); the
// daemon, and a command whose point is a process of its own (what it loads, signals, locks between
// processes), through the real bin/svc as a child process (svcProcess, serve).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { FixtureDns } from './dns-server.js';
import { publish } from './domains.js';
import { commandEnv, run, type Run } from './run.js';
import { TLS_FIXTURE } from './tls.js';
import { fromRoot } from './root.js';

export const SVC = fromRoot('bin/svc');

export type { Run };

const childEnv = (env: Record<string, string> = {}) => commandEnv(env) as NodeJS.ProcessEnv;

/** How long one command may run before it is killed and the test fails (none takes a tenth of it). */
const COMMAND_DEADLINE_MS = 180_000;

/** How long a daemon may take to exit once signalled before it is killed and the test fails. */
const STOP_DEADLINE_MS = 30_000;

/** The exit code, or a failure (after SIGKILL) when the daemon did not exit within STOP_DEADLINE_MS. */
function stopped(child: ChildProcess, exited: Promise<number | null>, stderr: () => string): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not exit within ${STOP_DEADLINE_MS} ms of its signal (killed): ${stderr()}`));
    }, STOP_DEADLINE_MS);
  });
  return Promise.race([exited, late]).finally(() => clearTimeout(timer));
}

/** A command, run in this process (run.ts). */
export function svc(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<Run> {
  return run(args, opts);
}

/** A command through the real binary, in a process of its own. */
export function svcProcess(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC, ...args], { env: childEnv(opts.env), cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')}: still running after ${COMMAND_DEADLINE_MS} ms (killed): ${stderr}`));
    }, COMMAND_DEADLINE_MS);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (e) => (clearTimeout(timer), reject(e)));
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
  });
}

/** Parses the one JSON document a --json command printed. */
export function json<T = any>(run: Run): T {
  if (run.code !== 0) throw new Error(`svc exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

export interface ServeProcess {
  child: ChildProcess;
  urls: Record<string, string>;
  stderr: () => string;
  stdout: () => string;
  /** SIGTERM and the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `svc serve` on free ports and waits for its ready lines. */
export function serve(
  args: string[],
  opts: {
    env?: Record<string, string>;
    listeners?: string[];
    prefix?: string[];
    /** Nobody reads its stderr (the log) until the test does: the pipe fills, as a stalled reader's. */
    stalledLog?: boolean;
  } = {},
): Promise<ServeProcess> {
  const want = opts.listeners ?? ['api'];
  // `prefix`: a command the daemon runs under (unshare for a PID namespace of its own).
  const command = [
    ...(opts.prefix ?? []),
    process.execPath,
    SVC,
    'serve',
    '--api-port',
    '0',
    '--relay-port',
    '0',
    '--mx-port',
    '0',
    ...args,
  ];
  const child = spawn(command[0]!, command.slice(1), {
    // As in-process daemons (daemon.ts): no rate limit in the way, one compose thread, and the
    // fixture's certificate (tls.ts), unless the test says otherwise.
    env: childEnv({ SVC_RATE_LIMIT: '1000000', SVC_COMPOSE_THREADS: '1', ...TLS_FIXTURE, ...opts.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  if (opts.stalledLog) child.stderr!.pause();
  else child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const urls: Record<string, string> = {};
    const timer = setTimeout(() => reject(new Error(`serve not ready: ${stderr}`)), 120_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout += line + '\n';
      const m = /^svc: (\w+) listening on (\S+)$/.exec(line);
      if (m) urls[m[1]!] = m[2]!;
      if (want.every((w) => urls[w]) && urls.relay) {
        clearTimeout(timer);
        resolve({
          child,
          urls,
          stderr: () => stderr,
          stdout: () => stdout,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null) child.kill(signal);
            return stopped(child, exited, () => stderr);
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${stderr}`));
    });
  });
}

/**
 * Through the real binary: workspace acme (scale), acme.test added, published in the fixture DNS
 * and verified, hello@acme.test registered; returns a send-and-read key.
 */
export async function cliSender(base: string[], dns: FixtureDns): Promise<string> {
  json(await svc([...base, 'workspaces', 'create', 'acme', '--plan', 'scale', '--json']));
  const domain = json(await svc([...base, 'domains', 'add', 'acme.test', '--json']));
  publish(dns, 'acme.test', domain.records);
  const verified = await svc([...base, 'domains', 'verify', 'acme.test']);
  if (verified.code !== 0) throw new Error(`acme.test did not verify: ${verified.stdout}${verified.stderr}`);
  json(await svc([...base, 'addresses', 'add', 'hello@acme.test', '--json']));
  return json(await svc([...base, 'keys', 'create', '--json'])).key as string;
}

/** POST /api/v2/emails to a daemon started with serve(): a simple message from hello@acme.test; the status and the body. */
export async function postEmail(
  d: ServeProcess,
  key: string,
  to: string,
  subject: string,
): Promise<{ status: number; body: { id: string } & Record<string, unknown> }> {
  const r = await fetch(`${d.urls.api}/api/v2/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: 'hello@acme.test', to: [to], subject, body_text: 'x' }),
  });
  return { status: r.status, body: (await r.json()) as { id: string } & Record<string, unknown> };
}
