// A small logger handed to every part (no global logger). The daemon's is daemon/log.ts (pino:
// JSON or text lines with timestamps, a level, faults throttled); one-shot commands and tests use
// lineLog below. Keys and passwords are never passed to it.

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * `msg` is the event (`delivery`, `mx refused`, or a sentence); `fields` its facts, written as
 * JSON properties or as key=value. info is what happened to mail; warn and error are our own
 * faults.
 */
export interface Log {
  debug?(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Lines dropped because their reader did not keep up (the daemon's log; for /metrics). */
  dropped?(): number;
}

/** A field as text in a line: quoted when it holds spaces, quotes or `=`, line breaks flattened. */
const asText = (v: unknown) => {
  const s = String(v ?? '')
    .replace(/[\r\n]+/g, ' ')
    .slice(0, 300);
  return /[\s"=]/.test(s) || s === '' ? JSON.stringify(s) : s;
};

/** `msg key=value key="two words"`: how fields read in a line. */
export function textLine(msg: string, fields?: Record<string, unknown>): string {
  if (!fields) return msg;
  const kv = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${asText(v)}`);
  return kv.length ? `${msg} ${kv.join(' ')}` : msg;
}

export function lineLog(write: (line: string) => void, prefix = 'svc'): Log {
  const emit = (level: string, msg: string, fields?: Record<string, unknown>) =>
    write(`${prefix}: ${level === 'info' ? '' : level + ': '}${textLine(msg, fields)}\n`);
  return {
    debug: () => {},
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

export const silentLog: Log = { info() {}, warn() {}, error() {} };
