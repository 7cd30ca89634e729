// The process's open-file limit, so the relay's connection cap can never use up the descriptors
// the API, the store and outbound delivery need: at the limit, accept() fails with EMFILE and the
// API stops answering (seen with 1,500 idle relay connections).
import { readFileSync } from 'node:fs';

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

/** Descriptors kept for everything but relay connections: a quarter of the limit, at least 128. */
export function relayConnectionCeiling(limit: number | null): number | null {
  return limit === null ? null : Math.max(1, limit - Math.max(128, Math.floor(limit / 4)));
}
