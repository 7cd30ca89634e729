// `svc store check` and `svc store repair` for the file store (the quarantine they share with the
// store's own start-up is quarantine.ts). A line of a journal that cannot be read is never dropped and never
// stops the store: it is skipped, copied with its place and reason into quarantine/JOURNAL.jsonl,
// and reported at every start until `svc store repair --apply` takes it out of the journal.
import { open, readdir, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../errors.js';
import { segmentOf } from './journal.js';
import { scanFile, type BadLine } from './journal-scan.js';
import { syncDir } from './durable-json.js';
import { dataFileProblem } from './shapes.js';
import { DATA_FILE } from './doc.js';
import { checksOf, JOURNALS } from './journals.js';
import { QUARANTINE, setAside } from './quarantine.js';

export interface StoreProblem {
  file: string;
  /** 1-based line, for a journal line. */
  line: number | null;
  /** Byte offset in the file, for a journal line. */
  offset: number | null;
  /**
   * `bad_line`: a journal line that is not a readable record (skipped, set aside); `torn_tail`: a
   * last line a crash left without its newline (never acknowledged; cut at the next append);
   * `data_file`: svc.json cannot be read (the store does not open); `bad_reference`: an inbox
   * record whose message is not the attachment line just before it (missing, or of another length);
   * `duplicate`: a send accepted twice (two accept lines for one content id).
   */
  kind: 'bad_line' | 'torn_tail' | 'data_file' | 'bad_reference' | 'duplicate';
  reason: string;
}

export interface StoreReport {
  store: string;
  /** No bad lines and a readable svc.json (a torn tail alone is normal after a crash). */
  ok: boolean;
  problems: StoreProblem[];
}

export interface RepairReport extends StoreReport {
  applied: boolean;
  /** What repair did, or would do without --apply. */
  actions: Array<{ file: string; action: string }>;
}

interface Scanned {
  file: string;
  journal: string;
  size: number;
  bad: BadLine[];
  tornAt: number | null;
  /** What the records say that the lines alone do not show (references, duplicates). */
  findings: StoreProblem[];
}

/** A record as check reads it: only the fields whose references it follows. */
interface Checked {
  t?: string;
  raw_length?: number;
  content?: { id?: string };
}

async function scanJournals(dir: string): Promise<Scanned[]> {
  const out: Scanned[] = [];
  /** Accepted content ids of the mail journal, where first seen. */
  const accepted = new Map<string, string>();
  for (const journal of JOURNALS) {
    const { name } = journal;
    const { validate } = checksOf(journal);
    let files: string[];
    try {
      // In the order written: by day, then segment.
      files = (await readdir(join(dir, name)))
        .filter((f) => segmentOf(f))
        .sort((a, b) => {
          const x = segmentOf(a)!;
          const y = segmentOf(b)!;
          return x.partition < y.partition ? -1 : x.partition > y.partition ? 1 : x.segment - y.segment;
        });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    for (const f of files) {
      const file = join(dir, name, f);
      // Streamed, records not kept: a journal of any size is checked in bounded memory.
      const findings: StoreProblem[] = [];
      const scan = await scanFile<Checked>(file, f.slice(0, -'.jsonl'.length), validate, (r, offset, _length, attachment) => {
        // A received item's message, or a relayed send's, lies on the line before its record.
        if ((r.t === 'inbound' || r.t === 'accept') && r.raw_length !== undefined && attachment?.length !== r.raw_length) {
          const what = r.t === 'inbound' ? 'inbox record' : 'relayed send';
          findings.push({
            file,
            line: null,
            offset,
            kind: 'bad_reference',
            reason: attachment
              ? `the message before this ${what} is ${attachment.length} bytes, the record says ${r.raw_length}`
              : `no message line before this ${what} (it says ${r.raw_length} bytes): it cannot be read`,
          });
        }
        if (name === 'mail' && r.t === 'accept' && r.content?.id) {
          const first = accepted.get(r.content.id);
          if (first)
            findings.push({
              file,
              line: null,
              offset,
              kind: 'duplicate',
              reason: `send ${r.content.id} accepted a second time (first at ${first})`,
            });
          else accepted.set(r.content.id, `${f} byte ${offset}`);
        }
      });
      out.push({ file, journal: name, size: scan.size, bad: scan.bad, tornAt: scan.tornAt, findings });
    }
  }
  return out;
}

async function dataFile(dir: string): Promise<StoreProblem | null> {
  const file = join(dir, DATA_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { file, line: null, offset: null, kind: 'data_file', reason: (e as Error).message };
  }
  let why: string | null;
  try {
    why = dataFileProblem(JSON.parse(text));
  } catch (e) {
    why = `not JSON (${(e as Error).message})`;
  }
  return why ? { file, line: null, offset: null, kind: 'data_file', reason: why } : null;
}

/** Copies byte ranges of `file` to `to`, a megabyte at a time. */
async function copyRanges(file: string, to: FileHandle, ranges: ReadonlyArray<[number, number]>): Promise<void> {
  const src = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1024 * 1024);
    for (const [start, end] of ranges) {
      for (let pos = start; pos < end;) {
        const { bytesRead } = await src.read(buf, 0, Math.min(buf.length, end - pos), pos);
        if (bytesRead <= 0) throw new Error(`${file} is shorter than it was when checked`);
        for (let w = 0; w < bytesRead;) w += (await to.write(buf, w, bytesRead - w)).bytesWritten;
        pos += bytesRead;
      }
    }
  } finally {
    await src.close();
  }
}

/** Reads every file of the store and reports what cannot be read; changes nothing. */
export async function checkFileStore(dir: string): Promise<StoreReport> {
  return report(dir, await scanJournals(dir));
}

async function report(dir: string, scanned: Scanned[]): Promise<StoreReport> {
  const problems: StoreProblem[] = [];
  const data = await dataFile(dir);
  if (data) problems.push(data);
  for (const s of scanned) {
    for (const b of s.bad) problems.push({ file: s.file, line: b.line, offset: b.offset, kind: 'bad_line', reason: b.reason });
    if (s.tornAt !== null)
      problems.push({
        file: s.file,
        line: null,
        offset: s.tornAt,
        kind: 'torn_tail',
        reason: `${s.size - s.tornAt} byte(s) after the last newline (a write a crash cut short; never acknowledged)`,
      });
    problems.push(...s.findings);
  }
  return { store: `file:${dir}`, ok: problems.every((p) => p.kind === 'torn_tail'), problems };
}

/**
 * Takes bad lines out of the journals (after copying them to quarantine/) and cuts torn tails;
 * without `apply` it only says what it would do. The caller holds the store's lock. svc.json is
 * never rewritten here: a data file that cannot be read is left for the operator.
 */
export async function repairFileStore(dir: string, apply: boolean): Promise<RepairReport> {
  const scanned = await scanJournals(dir);
  const before = await report(dir, scanned);
  const actions: RepairReport['actions'] = [];
  for (const s of scanned) {
    if (!s.bad.length && s.tornAt === null) continue;
    if (s.bad.length)
      actions.push({
        file: s.file,
        action: `copy ${s.bad.length} unreadable line(s) (line ${s.bad.map((b) => b.line).join(', ')}) to ${join(dir, QUARANTINE, `${s.journal}.jsonl`)} and remove them from the journal`,
      });
    if (s.tornAt !== null) actions.push({ file: s.file, action: `cut the torn tail (${s.size - s.tornAt} byte(s) at offset ${s.tornAt})` });
    if (!apply) continue;
    await setAside(dir, s.journal, s.bad);
    // What stays: the byte ranges between the bad lines, up to the torn tail, copied a chunk at a time.
    const keep: Array<[number, number]> = [];
    let from = 0;
    for (const b of [...s.bad].sort((x, y) => x.offset - y.offset)) {
      keep.push([from, b.offset]);
      from = b.offset + b.raw.length + 1;
    }
    keep.push([from, s.tornAt ?? s.size]);
    // Atomic: the old journal or the new one, never half of each.
    const tmp = `${s.file}.repair.tmp`;
    const fh = await open(tmp, 'w', 0o600);
    try {
      await copyRanges(s.file, fh, keep);
      await fh.sync();
    } catch (e) {
      await fh.close();
      await unlink(tmp).catch(() => {});
      throw new SvcError('store_unavailable', `cannot write ${tmp}: ${(e as Error).message}; the journal was left untouched`, { cause: e });
    }
    await fh.close();
    await rename(tmp, s.file);
    await syncDir(join(dir, s.journal));
  }
  if (!apply) return { ...before, applied: false, actions };
  const after = await checkFileStore(dir);
  return { ...after, applied: true, actions };
}
