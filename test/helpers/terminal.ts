// A command on a person's terminal: script(1) from util-linux gives it a pseudo-terminal, so svc
// sees a TTY on stdin and stdout and draws what it draws for people (colour, live views, questions).
//
// The environment is a person's, not the test runner's: CI, FORCE_COLOR and NO_COLOR are removed
// (chalk's colour detection and ink both turn themselves off under CI=1, and CI sets it), TERM says
// a colour terminal, and no SVC_ setting leaks in from the shell that started the tests. A test
// adds what it is about (NO_COLOR=1, say) through `env`.
import { spawn, spawnSync } from 'node:child_process';
import type { Writable } from 'node:stream';
import { SVC } from './cli.js';

/** Why the terminal tests are skipped here, or false when script(1) is installed. */
export const noTerminal: string | false =
  spawnSync('script', ['--version']).status === 0 ? false : 'script(1) is not installed (util-linux)';

export interface TerminalRun {
  /** svc's arguments (quoted for the shell here), or `shell`: a command line of its own. */
  args?: string[];
  shell?: string;
  /** Added to (a value) or removed from (undefined) a person's environment. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  cols?: number;
  rows?: number;
  /** Typed before anything is shown, then the keyboard is put down (end of input). */
  typedAhead?: string;
  /** Called with all the terminal showed so far, each time more arrives: type answers here. */
  onScreen?: (shown: string, keyboard: Writable) => void;
  /** The command is killed after this long (a test never waits without a deadline). */
  deadlineMs?: number;
}

/** Quotes one word for sh. */
export const shellWord = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

/** The command line that runs svc with these arguments. */
export const svcLine = (args: string[]) => [process.execPath, SVC, ...args].map(shellWord).join(' ');

function personsEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
  for (const k of Object.keys(env)) if (k.startsWith('SVC_')) delete env[k];
  for (const k of ['CI', 'CONTINUOUS_INTEGRATION', 'FORCE_COLOR', 'NO_COLOR']) delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Runs the command on a pseudo-terminal to its end: its exit code and everything the terminal showed (CR removed). */
export function onTerminal(run: TerminalRun): Promise<{ code: number | null; out: string }> {
  const command = run.shell ?? svcLine(run.args ?? []);
  // A pseudo-terminal starts with no size: give it one, as a terminal window has.
  const line = `stty cols ${run.cols ?? 120} rows ${run.rows ?? 40}; ${command}`;
  const child = spawn('script', ['-qfec', line, '/dev/null'], {
    cwd: run.cwd,
    env: personsEnv(run.env ?? {}),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (run.typedAhead !== undefined) child.stdin.end(run.typedAhead);
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    run.onScreen?.(out, child.stdin);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), run.deadlineMs ?? 60_000);
    child.on('error', (e) => (clearTimeout(timer), reject(e)));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.replace(/\r/g, '') });
    });
  });
}

/** Escape sequences (colour, cursor movement) taken out of terminal output. */
export const unescaped = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** A colour escape: a foreground colour, bold or dim. */
export const COLOUR = /\x1b\[(?:3[0-9]|9[0-7]|1|2)(?:;\d+)*m/;
