// File store: the team inbox's index in memory, compact. Long because the columns, the folder
// chains, the thread chains and the activity list are one structure: a change to one is made in the
// others in the same step. Every item of both folders is a number with columns of numbers
// (columns.ts): its workspace, kind, where its line starts, when it was created, its place in its
// workspace's folder and in its thread, and 32-bit hashes of its id and Message-ID. No string of an
// item is held: the caller reads what it shows from the item's journal line, and confirms on disk an
// item found by a hash. About 86 bytes an item (bench/RESULTS.md), so memory follows the items kept, not the
// strings that came with them.
//
// Threads: the first item stored with a thread id is the thread's anchor, whose columns also hold the
// thread's count, its newest item and its place among the workspace's threads by last activity (a
// doubly linked list). A thread is found by a 52-bit key of its id within its workspace (two ids share
// one with odds of about 1 in 10^4 in a workspace of a million threads, and would then show as one
// thread). Deleted items stay as numbers, skipped, until they are half of the index; then it is
// rebuilt from the columns alone.
import { INBOX_KINDS, type InboxKind } from '../../model/inbox.js';
import { CHUNK, HashSlots, f64, fnv, headTest, hexHead, u16, u32, u8 } from './columns.js';

export const NONE = 0xffffffff;
const SENT = INBOX_KINDS.indexOf('sent');
const KIND = 0x07;
const HAS_MID = 0x08;
const GONE = 0x10;
/** Segments of a day: offsets below 2^36 (64 GB), the segment above; exact in a double up to 2^53. */
const SEGMENT_UNIT = 2 ** 36;

/** What an item is indexed by, as the store has it. */
export interface IndexedItem {
  id: string;
  workspace_id: string;
  kind: InboxKind;
  thread_id: string;
  message_id: string | null;
  message_ref: string | null;
  created_at: string;
}

/** Where an item's line starts in its journal (inbox journal for received items, mail journal for Sent copies). */
export interface LineStart {
  partition: string;
  segment: number;
  offset: number;
}

/** Items as rows of the columns they are added with (a snapshot's contents). */
export interface IndexRows {
  rows: number;
  workspaces: string[];
  days: string[];
  /** [row, message record id] of the rows about a record. */
  refs: Array<[number, string]>;
  ws: Uint32Array;
  flags: Uint8Array;
  day: Uint16Array;
  pos: Float64Array;
  createdS: Uint32Array;
  createdMs: Uint16Array;
  idHash: Uint32Array;
  midHash: Uint32Array;
  tKey: Float64Array;
  idHead: Uint32Array;
  threadHead: Uint32Array;
}

/**
 * The whole index as a snapshot holds it (inbox-snapshot.ts), so that a start reads it back at the
 * speed of the disk instead of adding each item again: every column and table as bytes, and the few
 * structures beside them.
 */
export interface IndexImage {
  n: number;
  gone: number;
  workspaces: string[];
  days: string[];
  /** [workspace number, its folders' heads, live counts, counts by kind, threads, newest thread]. */
  spaces: Array<[number, number[], number[], number[], number, number]>;
  refs: Array<[string, number[]]>;
  /** Keys in the tables by id, Message-ID and thread. */
  counts: number[];
  /** The columns, in their order, then the three tables' slots. */
  blobs: Buffer[];
}

/** A thread as InboxIndex.threads lists it (items by number). */
export interface ThreadAt {
  anchor: number;
  count: number;
  newest: number;
  oldest: number;
  receivedMs: number | null;
}

/** An item as its reader needs it (InboxIndex.ref). */
export interface ItemRef {
  at: LineStart;
  sent: boolean;
  workspace: string;
  /** The 32-bit hash of its id (one line holds an item per workspace, and may hold several of one). */
  idHash: number;
}

class Workspace {
  /** The newest item of each folder (inbox, sent): the start of its chain through `prev`. */
  readonly heads = [NONE, NONE];
  readonly live = [0, 0];
  readonly kinds = new Uint32Array(INBOX_KINDS.length);
  threads = 0;
  /** The thread (anchor) with the newest activity: the start of the list through `actNext`. */
  act = NONE;
}

/** The columns and tables; replaced whole when the index is rebuilt. */
class Core {
  n = 0;
  gone = 0;
  readonly ws = u32();
  readonly flags = u8();
  readonly day = u16();
  readonly pos = f64();
  /** When it was created: seconds since 1970 and milliseconds (6 bytes, not a double's 8). */
  readonly createdS = u32();
  readonly createdMs = u16();
  /** The item stored before it in its workspace's folder. */
  readonly prev = u32();
  /** A thread's chain: the anchor, then its other items newest stored first. */
  readonly tnext = u32();
  readonly idHash = u32();
  readonly midHash = u32();
  /** The thread id's 52-bit key (the anchor is found by it). */
  readonly tKey = f64();
  /** The first 32 bits of its id and of its thread id (hexHead): short ids are looked up by them. */
  readonly idHead = u32();
  readonly threadHead = u32();
  readonly count = u32();
  readonly newest = u32();
  readonly actPrev = u32();
  readonly actNext = u32();
  readonly columns = [
    this.ws,
    this.flags,
    this.day,
    this.pos,
    this.createdS,
    this.createdMs,
    this.prev,
    this.tnext,
    this.idHash,
    this.midHash,
    this.tKey,
    this.count,
    this.newest,
    this.actPrev,
    this.actNext,
    this.idHead,
    this.threadHead,
  ];
  readonly ids = new HashSlots((e) => this.idHash.get(e));
  readonly mids = new HashSlots((e) => this.midHash.get(e));
  readonly threads = new HashSlots((e) => Math.floor(this.tKey.get(e) / 2 ** 20));
  readonly spaces = new Map<number, Workspace>();

  /** Room for `n` items in the tables, at once. */
  reserve(n: number): void {
    this.ids.reserve(n);
    this.mids.reserve(n);
    this.threads.reserve(n);
  }

  created(n: number): number {
    return this.createdS.get(n) * 1000 + this.createdMs.get(n);
  }

  /** The item's thread anchor. */
  anchor(n: number): number {
    return this.findThread(this.ws.get(n), this.tKey.get(n));
  }

  /** The anchor of the thread with this key in a workspace, or NONE. */
  findThread(w: number, key: number): number {
    let found = NONE;
    this.threads.probe(Math.floor(key / 2 ** 20), (e) => {
      if (this.tKey.get(e) !== key || this.ws.get(e) !== w) return false;
      found = e;
      return true;
    });
    return found;
  }
  /** message record id → the items about it (few: replies and reports to mail sent). */
  readonly refs = new Map<string, number[]>();
}

/** What an item is, besides its strings: kept to rebuild the index without reading them again. */
interface Raw {
  w: number;
  kind: number;
  hasMid: boolean;
  day: number;
  pos: number;
  created: number;
  idHash: number;
  midHash: number;
  tKey: number;
  idHead: number;
  threadHead: number;
  ref: string | null;
}

const threadKey = (w: number, threadId: string): number => {
  const hi = (fnv(threadId) ^ Math.imul(w + 1, 0x9e3779b1)) >>> 0;
  return hi * 2 ** 20 + (fnv(threadId, 0x2545f491) >>> 12);
};

export class InboxIndex {
  #c = new Core();
  readonly #wsIds: string[] = [];
  readonly #wsNo = new Map<string, number>();
  readonly #days: string[] = [];
  readonly #dayNo = new Map<string, number>();
  /** While the journals are read at start: threads are ordered once at the end (finishBulk). */
  #bulk = false;

  /** Items stored (deleted ones included until a rebuild). */
  get size(): number {
    return this.#c.n;
  }

  beginBulk(): void {
    this.#bulk = true;
  }

  /** Orders every workspace's threads by last activity (after a bulk load). */
  finishBulk(): void {
    this.#bulk = false;
    const c = this.#c;
    const anchors = new Map<number, number[]>();
    for (let i = 0; i < c.n; i++) {
      // Only anchors count their thread's items.
      if (c.count.get(i) === 0) continue;
      const w = c.ws.get(i);
      let list = anchors.get(w);
      if (!list) anchors.set(w, (list = []));
      list.push(i);
    }
    for (const [w, list] of anchors) {
      // Newest stored first, then by activity, stably: mostly in order already, so the sort is cheap.
      list.reverse();
      const last = list.map((a) => c.created(c.newest.get(a)));
      const order = list.map((_, i) => i).sort((x, y) => last[y]! - last[x]!);
      const space = c.spaces.get(w)!;
      let prev = NONE;
      space.act = NONE;
      for (const k of order) {
        const a = list[k]!;
        c.actPrev.set(a, prev);
        c.actNext.set(a, NONE);
        if (prev === NONE) space.act = a;
        else c.actNext.set(prev, a);
        prev = a;
      }
    }
  }

  #workspace(id: string): number {
    let w = this.#wsNo.get(id);
    if (w === undefined) {
      w = this.#wsIds.length;
      this.#wsIds.push(id);
      this.#wsNo.set(id, w);
    }
    return w;
  }

  #dayOf(partition: string): number {
    let d = this.#dayNo.get(partition);
    if (d === undefined) {
      d = this.#days.length;
      this.#days.push(partition);
      this.#dayNo.set(partition, d);
    }
    return d;
  }

  add(item: IndexedItem, at: LineStart): number {
    const w = this.#workspace(item.workspace_id);
    return this.#add({
      w,
      kind: INBOX_KINDS.indexOf(item.kind),
      hasMid: item.message_id !== null,
      day: this.#dayOf(at.partition),
      pos: at.segment * SEGMENT_UNIT + at.offset,
      created: Date.parse(item.created_at),
      idHash: fnv(item.id),
      midHash: item.message_id === null ? 0 : fnv(item.message_id),
      tKey: threadKey(w, item.thread_id),
      idHead: hexHead(item.id),
      threadHead: hexHead(item.thread_id),
      ref: item.message_ref,
    });
  }

  #add(r: Raw): number {
    const c = this.#c;
    const n = c.n++;
    for (const col of c.columns) col.reserve(c.n);
    let space = c.spaces.get(r.w);
    if (!space) c.spaces.set(r.w, (space = new Workspace()));
    const folder = r.kind === SENT ? 1 : 0;
    c.ws.set(n, r.w);
    c.flags.set(n, r.kind | (r.hasMid ? HAS_MID : 0));
    c.day.set(n, r.day);
    c.pos.set(n, r.pos);
    c.createdS.set(n, Math.floor(r.created / 1000));
    c.createdMs.set(n, r.created % 1000);
    c.prev.set(n, space.heads[folder]!);
    space.heads[folder] = n;
    space.live[folder]!++;
    space.kinds[r.kind]!++;
    c.idHash.set(n, r.idHash);
    c.ids.insert(n, r.idHash);
    if (r.hasMid) {
      c.midHash.set(n, r.midHash);
      c.mids.insert(n, r.midHash);
    }
    if (r.ref !== null) {
      const list = c.refs.get(r.ref);
      if (list) list.push(n);
      else c.refs.set(r.ref, [n]);
    }
    c.tKey.set(n, r.tKey);
    c.idHead.set(n, r.idHead);
    c.threadHead.set(n, r.threadHead);
    let anchor = this.#c.findThread(r.w, r.tKey);
    c.newest.set(n, NONE);
    c.actPrev.set(n, NONE);
    c.actNext.set(n, NONE);
    if (anchor === NONE) {
      anchor = n;
      c.threads.insert(n, Math.floor(r.tKey / 2 ** 20));
      c.tnext.set(n, NONE);
    } else {
      c.tnext.set(n, c.tnext.get(anchor));
      c.tnext.set(anchor, n);
    }
    const count = c.count.get(anchor);
    c.count.set(anchor, count + 1);
    if (count === 0) {
      c.newest.set(anchor, n);
      space.threads++;
      if (!this.#bulk) this.#actInsert(space, anchor);
    } else if (r.created >= c.created(c.newest.get(anchor))) {
      c.newest.set(anchor, n);
      if (!this.#bulk) {
        this.#actUnlink(space, anchor);
        this.#actInsert(space, anchor);
      }
    }
    return n;
  }

  /** Places a thread in its workspace's list by its newest item (before threads as recent). */
  #actInsert(space: Workspace, anchor: number): void {
    const c = this.#c;
    const last = c.created(c.newest.get(anchor));
    let prev = NONE;
    let cur = space.act;
    while (cur !== NONE && c.created(c.newest.get(cur)) > last) {
      prev = cur;
      cur = c.actNext.get(cur);
    }
    c.actPrev.set(anchor, prev);
    c.actNext.set(anchor, cur);
    if (prev === NONE) space.act = anchor;
    else c.actNext.set(prev, anchor);
    if (cur !== NONE) c.actPrev.set(cur, anchor);
  }

  #actUnlink(space: Workspace, anchor: number): void {
    const c = this.#c;
    const prev = c.actPrev.get(anchor);
    const next = c.actNext.get(anchor);
    if (prev === NONE) {
      if (space.act === anchor) space.act = next;
    } else c.actNext.set(prev, next);
    if (next !== NONE) c.actPrev.set(next, prev);
    c.actPrev.set(anchor, NONE);
    c.actNext.set(anchor, NONE);
  }

  #live(n: number): boolean {
    return (this.#c.flags.get(n) & GONE) === 0;
  }

  /** The workspace an item belongs to. */
  workspaceOf(n: number): string {
    return this.#wsIds[this.#c.ws.get(n)]!;
  }

  isSent(n: number): boolean {
    return (this.#c.flags.get(n) & KIND) === SENT;
  }

  where(n: number): LineStart {
    const p = this.#c.pos.get(n);
    const segment = Math.floor(p / SEGMENT_UNIT);
    return { partition: this.#days[this.#c.day.get(n)]!, segment, offset: p - segment * SEGMENT_UNIT };
  }

  /** Live items of the workspace whose id hashes as `id`'s, oldest first (the caller confirms on disk). */
  byId(workspaceId: string, id: string): number[] {
    return this.#probe(this.#c.ids, workspaceId, fnv(id));
  }

  /** Live items of the workspace whose Message-ID hashes as `mid`'s, oldest first (the caller confirms on disk). */
  byMessageId(workspaceId: string, mid: string): number[] {
    return this.#probe(this.#c.mids, workspaceId, fnv(mid), HAS_MID);
  }

  #probe(table: HashSlots, workspaceId: string, hash: number, need = 0): number[] {
    const w = this.#wsNo.get(workspaceId);
    if (w === undefined) return [];
    const c = this.#c;
    const out: number[] = [];
    table.probe(hash, (e) => {
      const f = c.flags.get(e);
      if (c.ws.get(e) === w && (f & GONE) === 0 && (f & need) === need) out.push(e);
    });
    return out;
  }

  /**
   * Live items of the workspace (both folders) whose id may start with `prefix`, or with `threads`
   * the first live item of each thread whose id may: found by the ids' heads (hexHead), a walk of
   * numbers; the caller confirms on disk. Nothing for a prefix that is not lower-case hex.
   */
  withPrefix(workspaceId: string, prefix: string, threads: boolean): number[] {
    const test = headTest(prefix);
    const w = this.#wsNo.get(workspaceId);
    const space = w === undefined ? undefined : this.#c.spaces.get(w);
    if (!test || !space) return [];
    const c = this.#c;
    const out: number[] = [];
    if (threads) {
      for (let a = space.act; a !== NONE; a = c.actNext.get(a)) {
        if (!test(c.threadHead.get(a))) continue;
        const first = this.threadItems(a)[0];
        if (first !== undefined) out.push(first);
      }
      return out;
    }
    for (const head of space.heads)
      for (let n = head; n !== NONE; n = c.prev.get(n)) if (this.#live(n) && test(c.idHead.get(n))) out.push(n);
    return out;
  }

  /** Live items about a message record, oldest first (of any workspace: the caller filters). */
  about(ref: string): number[] {
    return (this.#c.refs.get(ref) ?? []).filter((n) => this.#live(n));
  }

  /** The thread anchor of a thread id in a workspace, or NONE. */
  thread(workspaceId: string, threadId: string): number {
    const w = this.#wsNo.get(workspaceId);
    return w === undefined ? NONE : this.#c.findThread(w, threadKey(w, threadId));
  }

  /** A folder's items newest stored first, optionally of one kind or one thread: a page and the total. */
  list(
    workspaceId: string,
    q: { sent: boolean; kind?: InboxKind; thread?: number; offset: number; limit: number },
  ): { items: number[]; total: number } {
    const w = this.#wsNo.get(workspaceId);
    const space = w === undefined ? undefined : this.#c.spaces.get(w);
    if (!space) return { items: [], total: 0 };
    const c = this.#c;
    const kind = q.kind === undefined ? -1 : INBOX_KINDS.indexOf(q.kind);
    const keep = (n: number) => {
      const f = c.flags.get(n);
      return (f & GONE) === 0 && ((f & KIND) === SENT) === q.sent && (kind === -1 || (f & KIND) === kind);
    };
    if (q.thread !== undefined) {
      if (q.thread === NONE || c.ws.get(q.thread) !== w) return { items: [], total: 0 };
      const all: number[] = [];
      for (let n = c.tnext.get(q.thread); n !== NONE; n = c.tnext.get(n)) if (keep(n)) all.push(n);
      if (keep(q.thread)) all.push(q.thread);
      return { items: all.slice(q.offset, q.offset + q.limit), total: all.length };
    }
    const total = kind === -1 ? space.live[q.sent ? 1 : 0]! : (kind === SENT) === q.sent ? space.kinds[kind]! : 0;
    const items: number[] = [];
    let skipped = 0;
    for (let n = space.heads[q.sent ? 1 : 0]!; n !== NONE && items.length < q.limit && skipped + items.length < total; n = c.prev.get(n)) {
      if (!keep(n)) continue;
      if (skipped < q.offset) skipped++;
      else items.push(n);
    }
    return { items, total };
  }

  /**
   * A workspace's threads by last activity, newest first: their anchors, with count, newest and
   * oldest item and when its newest received item came (ms; null for Sent copies only). `keep`
   * (given the thread's key and that time) filters them, and then every thread is visited for the
   * total: a walk of numbers only.
   */
  threads(
    workspaceId: string,
    q: { offset: number; limit: number; keep?: (key: number, receivedMs: number | null) => boolean },
  ): { threads: ThreadAt[]; total: number } {
    const w = this.#wsNo.get(workspaceId);
    const space = w === undefined ? undefined : this.#c.spaces.get(w);
    if (!space) return { threads: [], total: 0 };
    const c = this.#c;
    const threads: ThreadAt[] = [];
    let i = 0;
    for (let a = space.act; a !== NONE && (q.keep || threads.length < q.limit); a = c.actNext.get(a)) {
      const received = this.#received(a);
      if (q.keep && !q.keep(c.tKey.get(a), received)) continue;
      if (i++ < q.offset || threads.length >= q.limit) continue;
      threads.push({ anchor: a, count: c.count.get(a), newest: c.newest.get(a), oldest: this.#oldest(a), receivedMs: received });
    }
    return { threads, total: q.keep ? i : space.threads };
  }

  /** The key of a workspace's thread id, as `threads` gives it to `keep`; undefined for a workspace with no items. */
  threadKeyOf(workspaceId: string, threadId: string): number | undefined {
    const w = this.#wsNo.get(workspaceId);
    return w === undefined ? undefined : threadKey(w, threadId);
  }

  /** A thread's live items (its anchor from `threads`), newest stored first but the anchor last. */
  threadItems(anchor: number): number[] {
    const c = this.#c;
    const out: number[] = [];
    for (let n = c.tnext.get(anchor); n !== NONE; n = c.tnext.get(n)) if (this.#live(n)) out.push(n);
    if (this.#live(anchor)) out.push(anchor);
    return out;
  }

  /** When the thread's newest live received item was created (ms), or null. */
  #received(anchor: number): number | null {
    const c = this.#c;
    let best: number | null = null;
    for (let n = anchor; n !== NONE; n = c.tnext.get(n)) {
      const f = c.flags.get(n);
      if ((f & GONE) === 0 && (f & KIND) !== SENT && (best === null || c.created(n) > best)) best = c.created(n);
    }
    return best;
  }

  /** The thread's first item by creation (the first stored among equals): its subject is the thread's. */
  #oldest(anchor: number): number {
    const c = this.#c;
    let best = NONE;
    // The chain runs newest stored first after the anchor; `<=` keeps the earliest stored of equals.
    const visit = (n: number) => {
      if (this.#live(n) && (best === NONE || c.created(n) <= c.created(best))) best = n;
    };
    for (let n = c.tnext.get(anchor); n !== NONE; n = c.tnext.get(n)) visit(n);
    visit(anchor);
    return best;
  }

  /** Marks items deleted; what they were (their folder, kind, thread) no longer counts. */
  remove(items: number[]): void {
    const c = this.#c;
    const moved = new Set<number>();
    for (const n of items) {
      const f = c.flags.get(n);
      if (f & GONE) continue;
      c.flags.set(n, f | GONE);
      c.gone++;
      const space = c.spaces.get(c.ws.get(n))!;
      space.live[(f & KIND) === SENT ? 1 : 0]!--;
      space.kinds[f & KIND]!--;
      const anchor = c.anchor(n);
      const left = c.count.get(anchor) - 1;
      c.count.set(anchor, left);
      if (left === 0) {
        space.threads--;
        this.#actUnlink(space, anchor);
        moved.delete(anchor);
        c.newest.set(anchor, NONE);
      } else if (c.newest.get(anchor) === n) moved.add(anchor);
    }
    // A thread whose newest item left: its newest is found again and it takes its place by that.
    for (const anchor of moved) {
      let best = NONE;
      for (let n = anchor; n !== NONE; n = c.tnext.get(n)) {
        if (this.#live(n) && (best === NONE || c.created(n) > c.created(best))) best = n;
      }
      c.newest.set(anchor, best);
      if (this.#bulk) continue;
      const space = c.spaces.get(c.ws.get(anchor))!;
      this.#actUnlink(space, anchor);
      this.#actInsert(space, anchor);
    }
    // `refs` keeps deleted items (about() skips them) until the rebuild.
    if (c.gone > CHUNK && c.gone * 2 > c.n) this.#rebuild();
  }

  /** Deletes every item of a workspace (its deletion); how many were live. */
  removeWorkspace(workspaceId: string): number {
    const w = this.#wsNo.get(workspaceId);
    if (w === undefined) return 0;
    const c = this.#c;
    const items: number[] = [];
    for (let n = 0; n < c.n; n++) if (c.ws.get(n) === w && this.#live(n)) items.push(n);
    this.remove(items);
    return items.length;
  }

  /** Deletes the items of one folder stored in a partition (a day dropped); returns how many were live. */
  removeDay(partition: string, sent: boolean): number {
    const d = this.#dayNo.get(partition);
    if (d === undefined) return 0;
    const c = this.#c;
    const items: number[] = [];
    for (let n = 0; n < c.n; n++) {
      const f = c.flags.get(n);
      if ((f & GONE) === 0 && c.day.get(n) === d && ((f & KIND) === SENT) === sent) items.push(n);
    }
    const bulk = this.#bulk;
    this.#bulk = true;
    this.remove(items);
    if (!bulk) this.finishBulk();
    return items.length;
  }

  /**
   * A segment of received items' lines was written again (segment-rewrite.ts): each item of it
   * moves to where its line went. A live item whose line is not there any more is deleted (never
   * the case when the rewrite kept every line with a live item, as the inbox's does).
   */
  moveLines(partition: string, segment: number, moved: ReadonlyMap<number, { offset: number }>): void {
    const d = this.#dayNo.get(partition);
    if (d === undefined) return;
    const c = this.#c;
    const lost: number[] = [];
    for (let n = 0; n < c.n; n++) {
      const f = c.flags.get(n);
      if ((f & GONE) !== 0 || (f & KIND) === SENT || c.day.get(n) !== d) continue;
      const p = c.pos.get(n);
      if (Math.floor(p / SEGMENT_UNIT) !== segment) continue;
      const to = moved.get(p - segment * SEGMENT_UNIT);
      if (to) c.pos.set(n, segment * SEGMENT_UNIT + to.offset);
      else lost.push(n);
    }
    if (lost.length) this.remove(lost);
  }

  /**
   * What the caller needs to read an item and tell it apart on its line: taken before any await,
   * since a rebuild (a deletion elsewhere) renumbers items.
   */
  ref(n: number): ItemRef {
    return { at: this.where(n), sent: this.isSent(n), workspace: this.workspaceOf(n), idHash: this.#c.idHash.get(n) };
  }

  /** The live received items, in the order stored, as what #add takes (a snapshot of them: inbox-snapshot.ts). */
  exportReceived(): IndexRows {
    const c = this.#c;
    const keep: number[] = [];
    for (let n = 0; n < c.n; n++) {
      const f = c.flags.get(n);
      if ((f & GONE) === 0 && (f & KIND) !== SENT) keep.push(n);
    }
    const rows = keep.length;
    const x: IndexRows = {
      rows,
      workspaces: [...this.#wsIds],
      days: [...this.#days],
      refs: [],
      ws: new Uint32Array(rows),
      flags: new Uint8Array(rows),
      day: new Uint16Array(rows),
      pos: new Float64Array(rows),
      createdS: new Uint32Array(rows),
      createdMs: new Uint16Array(rows),
      idHash: new Uint32Array(rows),
      midHash: new Uint32Array(rows),
      tKey: new Float64Array(rows),
      idHead: new Uint32Array(rows),
      threadHead: new Uint32Array(rows),
    };
    const row = new Map<number, number>();
    keep.forEach((n, i) => {
      row.set(n, i);
      x.ws[i] = c.ws.get(n);
      x.flags[i] = c.flags.get(n);
      x.day[i] = c.day.get(n);
      x.pos[i] = c.pos.get(n);
      x.createdS[i] = c.createdS.get(n);
      x.createdMs[i] = c.createdMs.get(n);
      x.idHash[i] = c.idHash.get(n);
      x.midHash[i] = c.midHash.get(n);
      x.tKey[i] = c.tKey.get(n);
      x.idHead[i] = c.idHead.get(n);
      x.threadHead[i] = c.threadHead.get(n);
    });
    for (const [ref, list] of c.refs) for (const n of list) if (row.has(n)) x.refs.push([row.get(n)!, ref]);
    return x;
  }

  /** A new index of these rows alone, its threads in order: what a snapshot holds (image). */
  static of(rows: IndexRows): InboxIndex {
    const x = new InboxIndex();
    x.beginBulk();
    x.importRows(rows);
    x.finishBulk();
    return x;
  }

  image(): IndexImage {
    const c = this.#c;
    return {
      n: c.n,
      gone: c.gone,
      workspaces: [...this.#wsIds],
      days: [...this.#days],
      spaces: [...c.spaces].map(([w, s]) => [w, [...s.heads], [...s.live], [...s.kinds], s.threads, s.act]),
      refs: [...c.refs],
      counts: [c.ids.count, c.mids.count, c.threads.count],
      blobs: [...c.columns.map((col) => col.bytes(c.n)), c.ids.image(), c.mids.image(), c.threads.image()],
    };
  }

  /** Byte lengths of an image's blobs for `n` items (the tables' are the image's own). */
  static columnBytes(n: number): number[] {
    return new Core().columns.map((col) => col.make(0).BYTES_PER_ELEMENT * n);
  }

  /** Holds what image() gave, in place of what it held: called before anything else is added. */
  load(img: IndexImage): void {
    if (this.#c.n !== 0 || this.#wsIds.length || this.#days.length)
      throw new Error('an inbox index image is loaded into an index that holds items');
    const c = new Core();
    c.n = img.n;
    c.gone = img.gone;
    c.columns.forEach((col, k) => col.load(img.blobs[k]!, img.n));
    [c.ids, c.mids, c.threads].forEach((table, k) => table.load(img.blobs[c.columns.length + k]!, img.counts[k]!));
    for (const [w, heads, live, kinds, threads, act] of img.spaces) {
      const s = new Workspace();
      heads.forEach((h, k) => (s.heads[k] = h));
      live.forEach((l, k) => (s.live[k] = l));
      s.kinds.set(kinds);
      s.threads = threads;
      s.act = act;
      c.spaces.set(w, s);
    }
    for (const [ref, list] of img.refs) c.refs.set(ref, list);
    this.#c = c;
    for (const id of img.workspaces) this.#workspace(id);
    for (const day of img.days) this.#dayOf(day);
  }

  /** Adds the rows of a snapshot (before anything else is added; threads are ordered by finishBulk). */
  importRows(x: IndexRows): void {
    const w = x.workspaces.map((id) => this.#workspace(id));
    const d = x.days.map((p) => this.#dayOf(p));
    const refOf = new Map(x.refs);
    this.#c.reserve(this.#c.n + x.rows);
    for (let i = 0; i < x.rows; i++) {
      const f = x.flags[i]!;
      this.#add({
        w: w[x.ws[i]!]!,
        kind: f & KIND,
        hasMid: (f & HAS_MID) !== 0,
        day: d[x.day[i]!]!,
        pos: x.pos[i]!,
        created: x.createdS[i]! * 1000 + x.createdMs[i]!,
        idHash: x.idHash[i]!,
        midHash: x.midHash[i]!,
        tKey: x.tKey[i]!,
        idHead: x.idHead[i]!,
        threadHead: x.threadHead[i]!,
        ref: refOf.get(i) ?? null,
      });
    }
  }

  /** A new core from the live items alone, in the order stored (their numbers change). */
  #rebuild(): void {
    const old = this.#c;
    const refOf = new Map<number, string>();
    for (const [ref, list] of old.refs) for (const n of list) refOf.set(n, ref);
    this.#c = new Core();
    const bulk = this.#bulk;
    this.#bulk = true;
    for (let n = 0; n < old.n; n++) {
      const f = old.flags.get(n);
      if (f & GONE) continue;
      this.#add({
        w: old.ws.get(n),
        kind: f & KIND,
        hasMid: (f & HAS_MID) !== 0,
        day: old.day.get(n),
        pos: old.pos.get(n),
        created: old.created(n),
        idHash: old.idHash.get(n),
        midHash: old.midHash.get(n),
        tKey: old.tKey.get(n),
        idHead: old.idHead.get(n),
        threadHead: old.threadHead.get(n),
        ref: refOf.get(n) ?? null,
      });
    }
    if (bulk) return;
    this.finishBulk();
  }
}
