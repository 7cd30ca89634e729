// The daemon's log (issue 31, README "The log"): pino, fastify's own logger. One JSON object per
// line (`time`, `level`, `msg`, the event's fields) or one readable line with the same facts, both
// with ISO timestamps; a least level changed live (SIGHUP); a log file reopened on SIGHUP for
// logrotate. What happened to mail is `info` and never held back; our own faults (`warn`, `error`)
// repeat at most once per kind in 10 s, the next line saying how many were held, so an outage of
// the database writes a few lines, not hundreds.
import pino from 'pino';
import type { Log, LogLevel } from '../src/log.js';
import { textLine } from '../src/log.js';
import { LineThrottle } from '../src/line-throttle.js';

export const FAULT_REPEAT_MS = 10_000;
const RANK: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

export interface DaemonLog extends Log {
  /** The least level written from now on. */
  setLevel(level: LogLevel): void;
  readonly level: LogLevel;
  /** Reopens the log file (after logrotate moved it); nothing for standard error. */
  reopen(): void;
}

export interface DaemonLogOptions {
  format: 'json' | 'text';
  level: LogLevel;
  /** Appended to (made if missing); absent: standard error. */
  file?: string | undefined;
  /** Tests: where lines go instead of a file descriptor. */
  write?: (line: string) => void;
  now?: () => number;
}

/** The same fault with another id or count is the same kind of line. */
const faultKind = (msg: string) => msg.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}|\d+/gi, '#').slice(0, 160);

/** Control characters from outside (a remote reply, a HELO) are shown, never obeyed by a terminal. */
const inert = (s: string) => s.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

export function daemonLog(opts: DaemonLogOptions): DaemonLog {
  const now = opts.now ?? Date.now;
  const dest = opts.write ? null : pino.destination({ dest: opts.file ?? 2, sync: true, append: true, mkdir: true });
  const out = opts.write ? { write: (s: string) => opts.write!(s) } : dest!;
  const json = pino(
    {
      level: 'debug',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    out,
  );
  const throttle = new LineThrottle(FAULT_REPEAT_MS);
  let least: LogLevel = opts.level;

  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (RANK[level] < RANK[least]) return;
    let extra = fields;
    if (level === 'warn' || level === 'error') {
      const held = throttle.pass(faultKind(msg), now());
      if (held === null) return;
      if (held) extra = { ...fields, repeated: held };
    }
    if (opts.format === 'json') {
      json[level](extra ?? {}, msg);
      return;
    }
    const note = extra?.repeated ? ` (and ${String(extra.repeated)} more like it in the ${FAULT_REPEAT_MS / 1000} s before)` : '';
    const { repeated: _r, ...rest } = extra ?? {};
    out.write(`${new Date(now()).toISOString()} svc: ${level === 'info' ? '' : `${level}: `}${inert(textLine(msg, rest))}${note}\n`);
  };

  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    setLevel(level) {
      least = level;
    },
    get level() {
      return least;
    },
    reopen() {
      if (opts.file && dest) dest.reopen();
    },
  };
}
