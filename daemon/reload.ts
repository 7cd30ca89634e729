// SIGHUP (docs/operating.md "Signals"): the config file is read again and what can change in a
// running daemon changes; the rest is named as needing a restart, and nothing stops. Live: the log
// level (the caller's log), the outbound route and its CA, the STARTTLS certificate of relay and MX.
import type { Config } from '../src/config.js';

/** Settings a running daemon takes on SIGHUP (by Config key). */
export const LIVE: ReadonlySet<keyof Config> = new Set<keyof Config>(['logLevel', 'outbound', 'outboundCa', 'tlsCert', 'tlsKey']);

export interface ReloadResult {
  /** Changed and now in force. */
  applied: string[];
  /** Changed in the file or environment, but taken only at the next start. */
  restart: string[];
}

/** The Config keys whose values differ (the store's key compared as bytes). */
export function changedKeys(now: Config, next: Config): Array<keyof Config> {
  const keys = new Set([...Object.keys(now), ...Object.keys(next)] as Array<keyof Config>);
  return [...keys].filter((k) => JSON.stringify(now[k]) !== JSON.stringify(next[k])).sort();
}
