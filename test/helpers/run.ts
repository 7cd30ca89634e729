// Runs a command in this process, through the commands' own `main(argv, io)`: what bin/svc does,
// without starting a Node for each command. Output is captured; no colour, no terminal, no system
// config file unless the test names one.
import { main } from '../../commands/main.js';
import type { Run } from './cli.js';

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
    env: { NO_COLOR: '1', ...opts.env },
    cwd: opts.cwd ?? process.cwd(),
    ...(opts.systemConfig ? { systemConfig: opts.systemConfig } : {}),
  });
  return { code, stdout, stderr };
}
