// The daemon's log (docs/operating.md "The log"): pino, fastify's own logger. One JSON object per
// line (`time`, `level`, `msg`, the event's fields) or one readable line with the same facts, both
// with ISO timestamps; a least level changed live (SIGHUP); a log file reopened on SIGHUP for
// logrotate. What happened to mail is `info` and never held back; our own faults (`warn`, `error`)
// repeat at most once per kind in 10 s, the next line saying how many were held, so an outage of
// the database writes a few lines, not hundreds.
//
// Writing never waits: lines go to sonic-boom (pino's destination) asynchronously, in a buffer of
// --log-buffer bytes. A reader that stops reading (a paused terminal, a full pipe, a slow
// collector) once froze every listener for as long, the log being written synchronously; now lines
// past the buffer are dropped and counted (said in the log once the reader is back, and in
// /metrics). What must survive a crash is in the store, not in the log.
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
  /** Writes what is held, for at most `ms` (a stop), and lets go of the destination. */
  close(ms?: number): Promise<void>;
}

export interface DaemonLogOptions {
  format: 'json' | 'text';
  level: LogLevel;
  /** Appended to (made if missing); absent: standard error. */
  file?: string | undefined;
  /** Bytes of lines held for a slow reader (--log-buffer). */
  buffer?: number;
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
  const dest = opts.write
    ? null
    : pino.destination({ dest: opts.file ?? 2, sync: false, append: true, mkdir: true, maxLength: opts.buffer ?? 16 * 1024 * 1024 });
  const out = opts.write ? { write: (s: string) => opts.write!(s) } : dest!;
  // Lines the buffer had no room for; said once the reader keeps up again: checked every second, and
  // said when a whole second passed without a drop (a note written while the buffer is still full
  // would be dropped too). The note is not a fault line: no throttle holds it back.
  let dropped = 0;
  let told = 0;
  let seen = 0;
  dest?.on('drop', (data: string) => {
    dropped += data.split('\n').length - 1 || 1;
  });
  const teller = setInterval(() => {
    if (dropped !== seen) {
      seen = dropped;
      return;
    }
    if (dropped === told) return;
    const n = dropped - told;
    told = dropped;
    write('warn', `log: ${n} line(s) dropped: whatever reads the log did not keep up (the daemon went on; ${dropped} in all)`);
  }, 1_000);
  teller.unref();
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
    write(level, msg, extra);
  };
  /** One line, in the configured format. */
  const write = (level: LogLevel, msg: string, extra?: Record<string, unknown>) => {
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
    dropped: () => dropped,
    async close(ms = 2_000) {
      clearInterval(teller);
      if (!dest) return;
      // A reader that never reads again must not hold the stop: at most `ms`.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        timer.unref();
        dest.flush(() => (clearTimeout(timer), resolve()));
      });
    },
  };
}
