// The quarantine: where a journal line that cannot be read is copied, with its place and reason,
// when the store opens (file-store.ts) or is repaired (check.ts). Its own module so that opening
// a store loads this and not the check and repair code.
import { appendFile, mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BadLine } from './journal-scan.js';

export const QUARANTINE = 'quarantine';

/** Copies bad lines into quarantine/JOURNAL.jsonl, once each; returns how many were new there. */
export async function setAside(dir: string, journal: string, bad: readonly BadLine[]): Promise<number> {
  if (!bad.length) return 0;
  const qdir = join(dir, QUARANTINE);
  await mkdir(qdir, { recursive: true, mode: 0o700 });
  const path = join(qdir, `${journal}.jsonl`);
  const seen = new Set<string>();
  try {
    for (const l of (await readFile(path, 'utf8')).split('\n')) {
      try {
        const q = JSON.parse(l) as { partition: string; offset: number };
        seen.add(`${q.partition}:${q.offset}`);
      } catch {
        /* a torn quarantine line: written again below */
      }
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const fresh = bad.filter((b) => !seen.has(`${b.partition}:${b.offset}`));
  if (!fresh.length) return 0;
  const text = fresh
    .map(
      (b) =>
        JSON.stringify({
          journal,
          partition: b.partition,
          line: b.line,
          offset: b.offset,
          reason: b.reason,
          set_aside_at: new Date().toISOString(),
          base64: b.raw.toString('base64'),
        }) + '\n',
    )
    .join('');
  await appendFile(path, text, { mode: 0o600 });
  const fh = await open(path, 'r');
  await fh.sync().finally(() => fh.close());
  return fresh.length;
}

/** One line for a log or stderr: what was set aside and what to do about it. */
export function describeBadLines(bad: readonly BadLine[]): string {
  const first = bad[0]!;
  const more = bad.length > 1 ? ` and ${bad.length - 1} more` : '';
  return `${bad.length} unreadable journal line(s) skipped and copied to quarantine/ (${first.file} line ${first.line} at byte ${first.offset}: ${first.reason}${more}); run svc store check, then svc store repair --apply`;
}
