// The process's open-file limit, so the SMTP listeners' connection caps (relay and MX together) can
// never use up the descriptors the API, the store and outbound delivery need: at the limit,
// accept() fails with EMFILE and the API stops answering (seen with 1,500 idle relay connections,
// and with 169 idle MX connections under a limit of 200).
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

/** Descriptors SMTP connections may take: all but a quarter of the limit (at least 128 kept). */
export function smtpConnectionCeiling(limit: number | null): number | null {
  return limit === null ? null : Math.max(2, limit - Math.max(128, Math.floor(limit / 4)));
}

/**
 * The relay's and the MX's connection caps as asked, or, when together they pass the ceiling,
 * shared out in proportion to what was asked (each at least 1).
 */
export function smtpConnectionCaps(ceiling: number | null, asked: { relay: number; mx: number }): { relay: number; mx: number } {
  if (ceiling === null || asked.relay + asked.mx <= ceiling) return asked;
  const relay = Math.min(ceiling - 1, Math.max(1, Math.floor((ceiling * asked.relay) / (asked.relay + asked.mx))));
  return { relay, mx: ceiling - relay };
}
