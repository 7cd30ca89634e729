// Times and sizes of command options: --since/--until (an ISO 8601 time, or how long ago: 30s,
// 15m, 2h, 7d), --older-than (an age), --limit.
import { SvcError } from '../src/errors.js';

const UNIT: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseSince(raw: string, now: Date = new Date(), flag = '--since'): string {
  const rel = /^(\d+)([smhd])$/.exec(raw.trim());
  if (rel) return new Date(now.getTime() - Number(rel[1]) * UNIT[rel[2]!]!).toISOString();
  const t = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(t))
    throw new SvcError('usage', `invalid ${flag} '${raw}': an ISO time (2026-11-22T10:00:00Z) or an age (30m, 2h, 7d)`);
  return new Date(t).toISOString();
}

/** An age (`90s`, `30m`, `2h`, `7d`, or seconds) in seconds. */
export function parseAge(raw: string, flag: string): number {
  const m = /^(\d+)([smhd])?$/.exec(raw.trim());
  if (!m) throw new SvcError('usage', `invalid ${flag} '${raw}': an age such as 90s, 30m, 2h or 7d`);
  return (Number(m[1]) * (UNIT[m[2] ?? 's'] ?? 1000)) / 1000;
}

export function parseLimit(raw: unknown, fallback = 100, max = 1000): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(String(raw)) || n < 1 || n > max) throw new SvcError('usage', `invalid --limit '${String(raw)}': 1 to ${max}`);
  return n;
}
