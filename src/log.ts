// A small logger handed to every part (no global logger): one line per event on stderr, JSON
// fields appended. Keys and passwords are never passed to it.
export interface Log {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function lineLog(write: (line: string) => void, prefix = 'svc'): Log {
  const emit = (level: string, msg: string, fields?: Record<string, unknown>) =>
    write(`${prefix}: ${level === 'info' ? '' : level + ': '}${msg}${fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields) : ''}\n`);
  return {
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

export const silentLog: Log = { info() {}, warn() {}, error() {} };
