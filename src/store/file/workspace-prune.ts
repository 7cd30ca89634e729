// File store: the journals written again without the lines of deleted workspaces, as the store
// opens after their purge (workspaces.ts leaves a note in svc.json; nothing reads the journals
// yet). A line is the workspace's when a record in it names the workspace (`workspace_id`), or
// names by a reference field (`id`, `..._id`) a record already known to be the workspace's: an
// outcome names its job, a delivery its message, a campaign's progress its campaign. The ids of
// every record found to be the workspace's are learnt as the journals are read in order, with
// those of its svc.json records (webhook endpoints, lists) to start with. A line that mixes
// workspaces (mail received for two, webhook jobs fanned out for many) is written again without
// the deleted workspace's records; a line left with nothing is dropped. Two passes: the first finds
// the segments with such lines (and learns every id), the second rewrites only those.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Journal } from './journal.js';
import type { Line } from './replay.js';
import type { Keep } from './segment-rewrite.js';
import type { PrunedWorkspace } from './doc.js';
import { BODIES, compacted } from './inbox-lines.js';

/** Fields that name another record by its id. */
const REF = /^(?:id|[a-z_]*_id)$/;
type Json = unknown;
type Obj = Record<string, Json>;
const isObj = (v: Json): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class WorkspacePrune {
  readonly #workspaces: Set<string>;
  readonly #learnt = new Set<string>();

  constructor(pruned: readonly PrunedWorkspace[]) {
    this.#workspaces = new Set(pruned.map((p) => p.id));
    for (const p of pruned) for (const id of p.ids) this.#learnt.add(id);
  }

  /** What becomes of one line: kept, dropped, or written without the deleted workspaces' records. */
  decide(line: Line): Keep<Line> {
    let base = line;
    let attachment = true;
    if (line.t === 'inbound') {
      // Mail received: its items' bodies lie in a list beside them, and the message (the line's
      // attachment) stays while an item is left; the compaction's rule says how (inbox-lines.ts).
      const k = compacted(line, { partition: '', segment: -1, offset: 0 }, (i) =>
        this.#workspaces.has(i.workspace_id) ? (this.#theirs(i), false) : true,
      );
      if (k === 'drop') return 'drop';
      if (k !== 'keep') ({ record: base, attachment } = k);
    }
    const out = this.#object(base as unknown as Obj);
    if (out === null) return 'drop';
    if (out === (line as unknown)) return 'keep';
    // Dropped when every list it held something in is left empty (nothing of anyone else remains).
    const lists = Object.entries(line).filter(([k, v]) => k !== BODIES && Array.isArray(v) && v.length);
    if (lists.length && lists.every(([k]) => (out[k] as Json[]).length === 0)) return 'drop';
    return { record: out as unknown as Line, attachment };
  }

  /** The object, a copy without the workspaces' parts, or null when it is theirs. */
  #object(o: Obj): Obj | null {
    if (typeof o.workspace_id === 'string' && this.#workspaces.has(o.workspace_id)) return this.#theirs(o);
    for (const [k, v] of Object.entries(o))
      if (k !== 'workspace_id' && typeof v === 'string' && REF.test(k) && this.#learnt.has(v)) return this.#theirs(o);
    let out = o;
    for (const [k, v] of Object.entries(o)) {
      let next: Json = v;
      if (Array.isArray(v)) next = this.#array(v);
      else if (isObj(v)) {
        next = this.#object(v);
        // A record holding one of theirs (a delivery log row holding its attempt) is theirs.
        if (next === null) return this.#theirs(o);
      }
      if (next !== v) {
        if (out === o) out = { ...o };
        out[k] = next;
      }
    }
    return out;
  }

  #array(a: Json[]): Json[] {
    let out: Json[] | null = null;
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      let next: Json | null = v;
      if (typeof v === 'string') next = this.#learnt.has(v) ? null : v;
      else if (Array.isArray(v)) next = this.#array(v);
      else if (isObj(v)) next = this.#object(v);
      if (next !== v && !out) out = a.slice(0, i);
      if (out && next !== null) out.push(next);
    }
    return out ?? a;
  }

  /** Learns the ids of a record of theirs and of everything in it; null. */
  #theirs(v: Json): null {
    if (Array.isArray(v)) for (const x of v) this.#theirs(x);
    else if (isObj(v)) {
      if (typeof v.id === 'string') this.#learnt.add(v.id);
      for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) this.#theirs(x);
    }
    return null;
  }
}

/**
 * Writes the journals (in the order their lines name one another: a campaign before its copies,
 * a send before its outcome, mail before what the MX received about it) without the lines of the
 * `pruned` workspaces. The inbox index's snapshot goes: it points into the old segments. How many
 * lines were dropped or written again.
 */
export async function pruneJournals(
  pruned: readonly PrunedWorkspace[],
  journals: ReadonlyArray<Journal<Line>>,
  inboxDir: string,
  snapshotFile: string,
): Promise<number> {
  const prune = new WorkspacePrune(pruned);
  const touched: Array<{ journal: Journal<Line>; partition: string; segment: number }> = [];
  let lines = 0;
  for (const journal of journals) {
    for (const partition of await journal.partitions()) {
      const segments = new Set<number>();
      await journal.each(partition, (record, at) => {
        if (prune.decide(record) === 'keep') return;
        lines++;
        segments.add(at.segment ?? 0);
      });
      for (const segment of segments) touched.push({ journal, partition, segment });
    }
  }
  for (const { journal, partition, segment } of touched) await journal.rewrite(partition, segment, (record) => prune.decide(record));
  if (touched.length) await rm(join(inboxDir, snapshotFile), { force: true });
  return lines;
}
