// File store: the team inbox. Long because reads, writes, the start from a snapshot and compaction
// share one index, its gate and its counts, and must change together. What the MX received is one
// `inbound` line per message in its own day-partitioned journal (inbox/DAY.jsonl, dropped by
// --inbox-retention-days), holding the items and what they change; the message aggregate applies the
// changes from the same line (messages.ts), and the suppressions are written to their journal first
// (as a job's outcome does: a crash between the two adds them again, harmlessly, when the sender
// retries). Sent copies are the sends' contents, read from the accept lines of the mail journal.
// Memory holds only the compact index of inbox-index.ts (numbers, no strings); what a list shows is
// read from the lines (inbox-lines.ts), and a snapshot of the index spares a start from reading them
// (inbox-snapshot.ts). Deleted items' bytes leave the disk when a compaction rewrites their segment.
import {
  inView,
  matches,
  sentItem,
  storageCharge,
  threadFlags,
  type InboxItem,
  type InboxSummary,
  type InboxThread,
  type ThreadState,
} from '../../model/inbox.js';
import {
  BODIES,
  compacted,
  inboxLines,
  restored,
  storedBody,
  summaryOf,
  type InboundLine,
  type InboxRemovedLine,
  type StoredItem,
} from './inbox-lines.js';
import type { InboxStore } from '../port/inbox.js';
import type { SuppressionStore } from '../port/suppressions.js';
import { fnv } from './columns.js';
import { InboxIndex, NONE, type ItemRef, type ThreadAt } from './inbox-index.js';
import type { ThreadMarks } from './thread-marks.js';
import { Gate } from './gate.js';
import type { Rewritten } from './segment-rewrite.js';
import {
  readSnapshot,
  stillHolds,
  writeSnapshot,
  type LinePlace,
  type Segment,
  type Snapshot,
  type SnapshotMeta,
} from './inbox-snapshot.js';
import { dayOf, type Journal, type LineAt } from './journal.js';
import type { AcceptLine } from './messages.js';
import type { Line, Replay } from './replay.js';

/**
 * A segment is compacted once deleted items' lines hold at least this much of it, and half of it:
 * each byte is then copied at most about once for each byte freed.
 */
export const COMPACT_MIN = 64 * 1024;
/**
 * About the bytes of a received item's lines: its message in base64 (4/3 of it), the text and HTML
 * bodies read from it (up to its size again; less when it carries attachments) and the record's
 * other fields (about 700 bytes; seen: 1,370 bytes in all for a 400-byte message). Only what starts a
 * compaction: the compaction measures what it frees.
 */
const lineBytes = (size: number): number => Math.ceil((size * 7) / 3) + 700;

/**
 * A search reads the lines of at most this many items, newest threads first: memory holds no
 * strings to search (docs/inbox.md "Team inbox").
 */
export const SEARCH_SCAN = 20_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The file store's inbox and what the store runs as it opens and closes. */
export interface FileInbox {
  store: InboxStore;
  /** Before the journals are read: the index's snapshot, when the journal still holds what it describes. */
  load(): Promise<void>;
  /** Reads the inbox journal (after the mail journal): what a snapshot held is passed over, but for lines that change message records. */
  replayJournal(): Promise<void>;
  /** Applies deletions written before they named where their item lies (found by reading the items). */
  settle(): Promise<void>;
  /** Writes the index's snapshot when it changed and holds at least `snapshotMin` received items. */
  save(): Promise<void>;
  /** A deleted workspace's items leave the index (their lines leave the journal at the next open: workspace-prune.ts); how many. */
  forgetWorkspace(workspaceId: string): Promise<number>;
}

export function fileInbox(
  journal: Journal<Line>,
  replay: Replay,
  mailReplay: Replay,
  mail: Journal<Line>,
  suppressions: SuppressionStore,
  onMessagesPurged: (fn: (days: string[]) => void) => void,
  snapshotMin: number,
  marks: ThreadMarks,
): FileInbox {
  const index = new InboxIndex();
  /** Lines that change message records, where they lie (a snapshot lists them: they are read again at start). */
  let effects: LinePlace[] = [];
  /** The snapshot read at open, whose extent of the journal is passed over. */
  let snapshot: Snapshot | null = null;
  /** Changed since the snapshot read (or there was none). */
  let dirty = false;
  /** Receives and deletions between their write and its apply, and writes begun (a snapshot waits for none in flight). */
  let inflight = 0;
  let begun = 0;
  /** While lines a snapshot holds are read again for their effects: the index has them already. */
  let fromSnapshot = false;
  /** Workspace → day → bytes of its received items stored that day (storageCharge). */
  const usage = new Map<string, Map<string, number>>();
  const charge = (ws: string, day: string, bytes: number) => {
    let days = usage.get(ws);
    if (!days) usage.set(ws, (days = new Map()));
    days.set(day, (days.get(day) ?? 0) + bytes);
  };
  /** Items whose deletion is being written. */
  const removing = new Set<string>();
  /** Reads, receives and deletions share it; a compaction, which moves lines, takes it alone. */
  const gate = new Gate();
  /** `partition/segment` → about how many bytes of it deleted items' lines hold (COMPACT_MIN, compact). */
  const dead = new Map<string, number>();
  const deadKey = (partition: string, segment: number) => `${partition}/${segment}`;
  /** Deletions read at start that do not say where their item lies (lines written before). */
  const unplaced: InboxRemovedLine[] = [];

  // Items are read through refs taken before any await (InboxIndex.ref).
  /** The line of an item: a list's part of it (`whole` false) or all of it. */
  const lineOf = async (r: ItemRef, whole: boolean): Promise<InboundLine | AcceptLine | null> => {
    if (r.sent) return (await mail.recordFrom(r.at)) as AcceptLine | null;
    return (await journal.recordFrom(r.at, whole ? undefined : BODIES)) as InboundLine | null;
  };
  /** Which of a line's items is the item. */
  const itemIn = (r: ItemRef, line: InboundLine): number =>
    line.items.findIndex((i) => i.workspace_id === r.workspace && fnv(i.id) === r.idHash);
  const summary = async (r: ItemRef): Promise<InboxSummary | null> => {
    const line = await lineOf(r, false);
    if (!line) return null;
    if (line.t === 'accept') return summaryOf(sentItem((line as AcceptLine).content));
    const k = itemIn(r, line as InboundLine);
    return k === -1 ? null : summaryOf((line as InboundLine).items[k]!);
  };
  const summaries = async (ns: number[]): Promise<InboxSummary[]> =>
    (await Promise.all(ns.map((n) => summary(index.ref(n))))).filter((s): s is InboxSummary => s !== null);
  const full = async (r: ItemRef): Promise<InboxItem | null> => {
    const line = await lineOf(r, true);
    if (!line) return null;
    if (line.t === 'accept') {
      // A relayed send's message lies before its record (AcceptLine.raw_length): its Sent copy's text
      // and HTML are read from it when the copy is shown.
      const sent = line as AcceptLine;
      if (sent.raw_length === undefined) return sentItem(sent.content);
      const raw = await mail.attachmentAt({ ...r.at, length: 0 }, sent.raw_length);
      return sentItem(raw === null ? sent.content : { ...sent.content, raw });
    }
    const l = line as InboundLine;
    const k = itemIn(r, l);
    if (k === -1) return null;
    const item = l.items[k]!;
    const body = l.item_bodies?.[k] ?? (item as StoredItem);
    const inItem = body.raw;
    if (inItem !== null || l.raw_length === undefined) return { ...restored(item, body, inItem ?? ''), raw: inItem };
    // The attachment lies just before the record, found from where the record starts.
    const base64 = await journal.attachmentAt({ ...r.at, length: 0 }, l.raw_length);
    return base64 === null ? null : { ...restored(item, body, base64), raw: base64 };
  };
  /** The live item of a workspace with this id, confirmed on disk. */
  const find = async (workspaceId: string, id: string): Promise<{ ref: ItemRef; summary: InboxSummary } | null> => {
    for (const ref of index.byId(workspaceId, id).map((n) => index.ref(n))) {
      const s = await summary(ref);
      if (s?.id === id) return { ref, summary: s };
    }
    return null;
  };
  /** The live item at a place (a deletion names it so). */
  const placedAt = (workspaceId: string, id: string, where: { partition: string; segment: number; offset: number }): number | undefined =>
    index.byId(workspaceId, id).find((n) => {
      const w = index.where(n);
      return w.partition === where.partition && w.segment === where.segment && w.offset === where.offset;
    });

  inboxLines(replay);
  replay.on<InboxRemovedLine>('inbox_removed', (line, where) => {
    dirty = true;
    if (line.offset === undefined || line.size === undefined) return void unplaced.push(line);
    const partition = where?.partition ?? dayOf(line.at);
    const n = placedAt(line.workspace_id, line.id, { partition, segment: line.segment ?? 0, offset: line.offset });
    if (n === undefined) return;
    index.remove([n]);
    charge(line.workspace_id, partition, -storageCharge(line.size));
    const key = deadKey(partition, line.segment ?? 0);
    dead.set(key, (dead.get(key) ?? 0) + lineBytes(line.size));
  });
  replay.on<InboundLine>('inbound', (line, at) => {
    if (!at || fromSnapshot) return;
    dirty = true;
    if (line.updates.length || line.events.length || line.outbox.length)
      effects.push({ partition: at.partition, segment: at.segment, offset: at.offset, length: at.length });
    const where = { partition: at.partition, segment: at.segment ?? 0, offset: at.offset };
    for (const item of line.items) {
      index.add(item, where);
      charge(item.workspace_id, at.partition, storageCharge(item.size));
    }
  });
  mailReplay.on<AcceptLine>('accept', (line, at) => {
    // What the index keeps of a Sent copy, without building the whole item (its headers) per send.
    const c = line.content;
    if (at && c.in_sent !== false)
      index.add(
        {
          id: c.id,
          workspace_id: c.workspace_id,
          kind: 'sent',
          thread_id: c.thread_id ?? c.id,
          message_id: c.message_id,
          message_ref: null,
          created_at: c.created_at,
        },
        { partition: at.partition, segment: at.segment ?? 0, offset: at.offset },
      );
  });
  // Both journals are read before threads are put in order, once.
  index.beginBulk();
  replay.afterReplay(() => index.finishBulk());
  onMessagesPurged((days) => {
    for (const day of days) index.removeDay(day, true);
  });

  const store: InboxStore = {
    receive: (d) =>
      gate.shared(async () => {
        for (const s of d.suppressions) await suppressions.add(s);
        for (const l of d.lifted ?? []) {
          const [s] = await suppressions.find(l.workspace_id, [l.address]);
          if (s?.reason === 'complaint') await suppressions.remove(l.workspace_id, l.address);
        }
        const base64 = d.raw.toString('base64');
        const at = d.items[0]?.created_at ?? new Date().toISOString();
        // Key order is the line's: the bodies last (BODIES).
        const line: InboundLine = {
          t: 'inbound',
          at,
          items: d.items.map(summaryOf),
          updates: d.updates,
          outbox: d.outbox,
          events: d.events,
          suppressions: d.suppressions.map((s) => ({ ...s })),
          raw_length: base64.length,
          item_bodies: d.items.map((i) => storedBody(i, d.raw)),
        };
        inflight++;
        begun++;
        try {
          const where = await journal.appendLocated(dayOf(line.at), line, base64);
          replay.apply(line, where);
        } finally {
          inflight--;
        }
      }),
    list: (workspaceId, q) =>
      gate.shared(async () => {
        const thread = q.thread_id === undefined ? undefined : index.thread(workspaceId, q.thread_id);
        const page = index.list(workspaceId, { sent: q.folder === 'sent', kind: q.kind, thread, offset: q.offset, limit: q.limit });
        return { data: await summaries(page.items), total: page.total };
      }),
    get: (workspaceId, id) =>
      gate.shared(async () => {
        const found = await find(workspaceId, id);
        return found ? full(found.ref) : null;
      }),
    idsWithPrefix: (workspaceId, prefix, limit, threads) =>
      gate.shared(async () => {
        const found = new Set<string>();
        // Refs are taken before any await (InboxIndex.ref); the heads narrowed them, the lines confirm.
        for (const ref of index.withPrefix(workspaceId, prefix, threads).map((n) => index.ref(n))) {
          if (found.size >= limit) break;
          const s = await summary(ref);
          const id = threads ? s?.thread_id : s?.id;
          if (id?.startsWith(prefix)) found.add(id);
        }
        return [...found];
      }),
    threads: (workspaceId, q) =>
      gate.shared(async () => {
        const view = q.view ?? 'all';
        const needle = (q.search ?? '').toLowerCase();
        const mine = marks.of(workspaceId);
        const byKey = new Map<number, ThreadState>();
        for (const [id, s] of mine) {
          const key = index.threadKeyOf(workspaceId, id);
          if (key !== undefined) byKey.set(key, s);
        }
        const keep =
          view === 'all' && !needle
            ? undefined
            : (key: number, ms: number | null) => inView(view, iso(ms), threadFlags(iso(ms), byKey.get(key)).archived);
        // Refs are taken before any await (InboxIndex.ref).
        const shown = (t: ThreadAt) => ({ t, last: index.ref(t.newest), first: t.oldest === t.newest ? null : index.ref(t.oldest) });
        const build = async ({ t, last: lastRef, first: firstRef }: ReturnType<typeof shown>): Promise<InboxThread | null> => {
          const [last, first] = await Promise.all([summary(lastRef), firstRef ? summary(firstRef) : null]);
          if (!last) return null;
          const received_at = iso(t.receivedMs);
          // The subject is the first item's; the sender and kind the newest's (as in Postgres).
          return {
            thread_id: last.thread_id,
            subject: (first ?? last).subject,
            count: t.count,
            last_at: last.created_at,
            last_from: last.from,
            last_kind: last.kind,
            received_at,
            ...threadFlags(received_at, mine.get(last.thread_id)),
          };
        };
        const done = async (page: Array<ReturnType<typeof shown>>, total: number) => ({
          data: (await Promise.all(page.map(build))).filter((t): t is InboxThread => t !== null),
          total,
        });
        if (!needle) {
          const page = index.threads(workspaceId, { offset: q.offset, limit: q.limit, ...(keep ? { keep } : {}) });
          return done(page.threads.map(shown), page.total);
        }
        // A search reads the items' lines (memory holds no strings), newest threads first, up to SEARCH_SCAN items.
        const candidates: Array<{ s: ReturnType<typeof shown>; items: ItemRef[] }> = [];
        let reading = 0;
        for (const t of index.threads(workspaceId, { offset: 0, limit: Infinity, keep: keep! }).threads) {
          if (reading >= SEARCH_SCAN) break;
          const items = index.threadItems(t.anchor).map((n) => index.ref(n));
          reading += items.length;
          candidates.push({ s: shown(t), items });
        }
        const hits: Array<ReturnType<typeof shown>> = [];
        let found = 0;
        for (const c of candidates) {
          const ss = await Promise.all(c.items.map(summary));
          if (!ss.some((s) => s !== null && matches(needle, s))) continue;
          if (found++ >= q.offset && hits.length < q.limit) hits.push(c.s);
        }
        return done(hits, found);
      }),
    threadState: async (workspaceId, threadId) => marks.get(workspaceId, threadId),
    markThread: async (workspaceId, threadId, patch) => {
      const ref = await gate.shared(async () => {
        const anchor = index.thread(workspaceId, threadId);
        if (anchor === NONE) return null;
        // The key is a hash: the thread is confirmed on disk by one of its items.
        const first = index.threadItems(anchor)[0];
        const s = first === undefined ? null : await summary(index.ref(first));
        return s?.thread_id === threadId ? s : null;
      });
      if (!ref) return false;
      await marks.set(workspaceId, threadId, patch);
      return true;
    },
    threadOf: (workspaceId, messageIds) =>
      gate.shared(async () => {
        for (const mid of messageIds) {
          for (const ref of index.byMessageId(workspaceId, mid).map((n) => index.ref(n))) {
            const s = await summary(ref);
            if (s?.message_id === mid) return s.thread_id;
          }
        }
        return null;
      }),
    about: (workspaceId, ref) =>
      gate.shared(async () => {
        const mine = index.about(ref).filter((n) => index.workspaceOf(n) === workspaceId);
        return (await summaries(mine)).filter((s) => s.message_ref === ref);
      }),
    usage: async (workspaceId) => {
      let bytes = 0;
      for (const b of usage.get(workspaceId)?.values() ?? []) bytes += b;
      return bytes;
    },
    remove: (workspaceId, id) =>
      gate.shared(async () => {
        // Two deletes of one item at once: the first deletes it, the second finds nothing (as a row delete would).
        if (removing.has(`${workspaceId}/${id}`)) return false;
        removing.add(`${workspaceId}/${id}`);
        try {
          const found = await find(workspaceId, id);
          if (!found || found.summary.folder !== 'inbox') return false;
          const { partition, segment, offset } = found.ref.at;
          const line: InboxRemovedLine = {
            t: 'inbox_removed',
            at: new Date().toISOString(),
            workspace_id: workspaceId,
            id,
            segment,
            offset,
            size: found.summary.size,
          };
          inflight++;
          begun++;
          try {
            await journal.append(partition, [line]);
            replay.apply(line, { partition, offset: 0, length: 0 });
          } finally {
            inflight--;
          }
          return true;
        } finally {
          removing.delete(`${workspaceId}/${id}`);
        }
      }),
    purge: (before) =>
      gate.shared(async () => {
        const cutoff = dayOf(before);
        let n = 0;
        for (const day of await journal.partitions()) {
          if (day >= cutoff) break;
          await journal.drop(day);
          n += index.removeDay(day, false);
          for (const days of usage.values()) days.delete(day);
          effects = effects.filter((e) => e.partition !== day);
          for (const key of [...dead.keys()]) if (key.startsWith(`${day}/`)) dead.delete(key);
          dirty = true;
        }
        return n;
      }),
    compact: async () => {
      let freed = 0;
      for (const [key, bytes] of [...dead]) {
        const [partition, segment] = [key.slice(0, key.lastIndexOf('/')), Number(key.slice(key.lastIndexOf('/') + 1))];
        const size = (await journal.extent(partition)).find((s) => s.segment === segment)?.size ?? 0;
        if (size === 0) dead.delete(key);
        if (size === 0 || bytes < COMPACT_MIN || bytes * 2 < size) continue;
        freed += await gate.alone(() => rewrite(partition, segment));
      }
      return freed;
    },
  };

  /** Rewrites one segment without deleted items (alone: nothing reads or appends meanwhile); the bytes freed. */
  const rewrite = async (partition: string, segment: number): Promise<number> => {
    // A write as far as a snapshot is concerned: it moves lines.
    inflight++;
    begun++;
    let done: Rewritten | null;
    try {
      done = await journal.rewrite(partition, segment, (line, at) =>
        compacted(
          line,
          { partition: at.partition, segment, offset: at.offset },
          (i, where) => placedAt(i.workspace_id, i.id, where) !== undefined,
        ),
      );
    } finally {
      inflight--;
    }
    dead.delete(deadKey(partition, segment));
    if (!done) return 0;
    index.moveLines(partition, segment, done.moved);
    effects = effects.flatMap((e) => {
      if (e.partition !== partition || (e.segment ?? 0) !== segment) return [e];
      const to = done.moved.get(e.offset);
      return to ? [{ ...e, ...to }] : [];
    });
    dirty = true;
    return done.before - done.after;
  };

  return {
    store,
    load: async () => {
      const s = await readSnapshot(journal.dir);
      if (!s) return;
      // A day dropped since (retention, then a crash before the next snapshot) leaves with its items;
      // a file changed otherwise (a repair) and the journal is read whole.
      const dropped: string[] = [];
      for (const [partition, recorded] of Object.entries(s.extent)) {
        const now = await journal.extent(partition);
        if (now.length === 0) dropped.push(partition);
        else if (!stillHolds(recorded, now)) return;
      }
      index.load(s.image);
      for (const day of dropped) {
        index.removeDay(day, false);
        delete s.extent[day];
      }
      // Only its extent is kept: its image is the index now.
      snapshot = { ...s, image: undefined as never };
      effects = s.effects.filter((e) => !dropped.includes(e.partition));
      for (const [ws, days] of s.usage) for (const [day, bytes] of days) if (!dropped.includes(day)) charge(ws, day, bytes);
      for (const [key, bytes] of s.dead ?? []) if (!dropped.some((day) => key.startsWith(`${day}/`))) dead.set(key, bytes);
      dirty = dropped.length > 0;
    },
    replayJournal: async () => {
      const apply = (line: Line, at: LineAt) => replay.apply(line, at);
      for (const day of await journal.partitions()) {
        const recorded = snapshot?.extent[day];
        const last = recorded?.at(-1);
        if (!recorded) {
          await journal.each(day, apply);
          continue;
        }
        fromSnapshot = true;
        try {
          for (const e of effects) {
            if (e.partition !== day) continue;
            const line = await journal.readAt(e);
            if (line) replay.apply(line, e);
          }
        } finally {
          fromSnapshot = false;
        }
        await journal.each(day, apply, last && { segment: last.segment, offset: last.size });
      }
    },
    save: async () => {
      if (!dirty) return;
      const rows = index.exportReceived();
      if (rows.rows < snapshotMin) return;
      // The received items alone, built afresh with their threads in order: what a start loads.
      const image = InboxIndex.of(rows).image();
      // The extent must be the journal as the index has it: nothing written meanwhile, nothing between its write and its apply.
      const started = begun;
      const extent: Record<string, Segment[]> = {};
      for (const day of await journal.partitions()) extent[day] = await journal.extent(day);
      if (inflight !== 0 || begun !== started) return;
      const use: SnapshotMeta['usage'] = [...usage].map(([ws, days]) => [ws, [...days]]);
      await writeSnapshot(journal.dir, { extent, effects, usage: use, dead: [...dead], image });
      dirty = false;
    },
    forgetWorkspace: (workspaceId) =>
      gate.alone(async () => {
        dirty = true;
        usage.delete(workspaceId);
        return index.removeWorkspace(workspaceId);
      }),
    settle: async () => {
      for (const line of unplaced.splice(0)) {
        const found = await find(line.workspace_id, line.id);
        const n = found && found.summary.folder === 'inbox' ? placedAt(line.workspace_id, line.id, found.ref.at) : undefined;
        if (n === undefined) continue;
        dirty = true;
        index.remove([n]);
        charge(line.workspace_id, found!.ref.at.partition, -storageCharge(found!.summary.size));
      }
    },
  };
}
