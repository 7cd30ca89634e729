// The process's open-file limit, shared out among the listeners (relay, MX, the API and the
// metrics listener) so that together they can never use up the descriptors the store, outbound
// delivery and DNS need: at the limit, accept() fails with EMFILE for every listener at once and
// the daemon stops answering (seen with 1,500 idle relay connections, with 169 idle MX
// connections under a limit of 200, and with 1,000 slow API bodies under 1,024).
import { readFileSync } from 'node:fs';
import type { Config } from '../src/config.js';
import type { Log } from '../src/log.js';

/** The metrics listener's connections: a scraper or two. */
const METRICS_CONNECTIONS = 16;

/** The soft limit on open files (Linux /proc/self/limits), or null where it cannot be read. */
export function openFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/** Descriptors the listeners' connections may take: all but a quarter of the limit (at least 128 kept). */
export function connectionCeiling(limit: number | null): number | null {
  return limit === null ? null : Math.max(2, limit - Math.max(128, Math.floor(limit / 4)));
}

/**
 * Each listener's connection cap as asked, or, when together they pass the ceiling, shared out in
 * proportion to what was asked (each at least 1).
 */
export function connectionCaps<K extends string>(ceiling: number | null, asked: Record<K, number>): Record<K, number> {
  const names = Object.keys(asked) as K[];
  const total = names.reduce((n, k) => n + asked[k], 0);
  if (ceiling === null || total <= ceiling) return { ...asked };
  const out = {} as Record<K, number>;
  let left = ceiling;
  names.forEach((k, i) => {
    const rest = names.length - i - 1;
    const share = i === names.length - 1 ? left : Math.floor((ceiling * asked[k]) / total);
    out[k] = Math.max(1, Math.min(left - rest, share));
    left -= out[k];
  });
  return out;
}

/**
 * The listeners' connection caps on this process's limit: each as configured, or shared out (with
 * a warning) where together they would take what the store and delivery need.
 */
export function listenerCaps(
  config: Pick<Config, 'apiMaxConnections' | 'relayMaxConnections' | 'mxMaxConnections'>,
  log: Log,
  limit: number | null = openFileLimit(),
): { api: number; relay: number; mx: number; metrics: number } {
  const asked = { api: config.apiMaxConnections, relay: config.relayMaxConnections, mx: config.mxMaxConnections };
  const caps = connectionCaps(connectionCeiling(limit), { ...asked, metrics: METRICS_CONNECTIONS });
  for (const name of ['api', 'relay', 'mx'] as const)
    if (caps[name] < asked[name])
      log.warn(
        `${name}: at most ${caps[name]} connections (not ${asked[name]}): the open-file limit is ${limit} and the store and delivery need a quarter of it; raise it with ulimit -n`,
      );
  return caps;
}
