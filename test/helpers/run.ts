// Runs a command in this process, through the commands' own `main(argv, io)`: what bin/svc does,
// without starting a Node for each command. Output is captured; no colour, no terminal, no stdin, no
// system config file unless the test names one. The environment is the test's without its SVC_
// variables, as a child's would be (cli.ts).
import { Readable } from 'node:stream';
import { main } from '../../commands/main.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The test's environment without its SVC_ variables, no colour, and `env` over it. */
export function commandEnv(env: Record<string, string> = {}): Record<string, string | undefined> {
  const e: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env };
  for (const k of Object.keys(e)) if (k.startsWith('SVC_') && !(k in env)) delete e[k];
  return e;
}

export interface RunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** The system's config file (bin/svc: /etc/svc/svc.toml); absent: none. */
  systemConfig?: string;
}

export async function run(argv: string[], opts: RunOptions = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (s: string | Uint8Array) => ((stdout += String(s)), true), isTTY: false },
    stderr: { write: (s: string | Uint8Array) => ((stderr += String(s)), true), isTTY: false },
    stdin: Readable.from([]),
    env: commandEnv(opts.env),
    cwd: opts.cwd ?? process.cwd(),
    ...(opts.systemConfig ? { systemConfig: opts.systemConfig } : {}),
  });
  return { code, stdout, stderr };
}
