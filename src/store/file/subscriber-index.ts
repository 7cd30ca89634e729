// File store: the subscribers' index in memory, compact (as the inbox's, columns.ts). Each
// subscriber is a number with columns of numbers: its list, status, where its latest line starts in
// its list's journal partition, 32-bit hashes of its id, email (within its list) and unsubscribe
// token, its id's first 32 bits (for short ids), and a 52-bit key of its email for the workspace's contacts count. No string of a
// subscriber is held: the store reads the record from its line and confirms there what a hash found.
// A list keeps its subscribers' numbers by ordinal (the order they were added, which its journal
// lines name, so a start needs no look-up), and counts by status. About 120 bytes a subscriber
// (bench/RESULTS.md); removed ones stay as numbers, skipped.
import { SUBSCRIBER_STATUSES, type SubscriberStatus } from '../../model/list.js';
import { HashSlots, f64, fnv, headTest, hexHead, u32, u8 } from './columns.js';

const GONE = 0xff;
/** Subscribers of a dropped list marked gone between two turns of the event loop. */
const DROP_BATCH = 5_000;
/** Offsets below 2^36 (64 GB) in a segment, the segment above. */
const SEGMENT_UNIT = 2 ** 36;

const key52 = (s: string): number => fnv(s) * 2 ** 20 + (fnv(s, 0x2545f491) >>> 12);
const statusCode = (s: SubscriberStatus): number => SUBSCRIBER_STATUSES.indexOf(s);

export interface LinePlace {
  segment: number;
  offset: number;
}

class ListEntry {
  /** Subscriber numbers by ordinal. */
  readonly order = u32();
  length = 0;
  /** Live subscribers by status code. */
  readonly counts = [0, 0, 0];
  constructor(
    readonly no: number,
    readonly workspace: string,
  ) {}

  get live(): number {
    return this.counts[0]! + this.counts[1]! + this.counts[2]!;
  }
}

export class SubscriberIndex {
  #n = 0;
  readonly #list = u32();
  readonly #status = u8();
  readonly #pos = f64();
  readonly #idHash = u32();
  /** The first 32 bits of its id (hexHead): short ids on the command line are looked up by them. */
  readonly #idHead = u32();
  readonly #emailHash = u32();
  readonly #tokenHash = u32();
  readonly #ekey = f64();
  /** Its ordinal in its list. */
  readonly #ord = u32();
  readonly #byId = new HashSlots((e) => this.#idHash.get(e));
  readonly #byEmail = new HashSlots((e) => this.#emailHash.get(e));
  readonly #byToken = new HashSlots((e) => this.#tokenHash.get(e));
  readonly #lists = new Map<string, ListEntry>();
  readonly #listIds: string[] = [];
  /** Workspace → email key → subscribers with it on its lists. */
  readonly #contacts = new Map<string, Map<number, number>>();

  #entry(listId: string, workspace: string): ListEntry {
    let l = this.#lists.get(listId);
    if (!l) {
      l = new ListEntry(this.#listIds.length, workspace);
      this.#listIds.push(listId);
      this.#lists.set(listId, l);
    }
    return l;
  }

  #emailHashOf(list: number, email: string): number {
    return (fnv(email) ^ Math.imul(list + 1, 0x9e3779b1)) >>> 0;
  }

  /** The next ordinal of a list (what a new subscriber's line names). */
  nextOrdinal(listId: string): number {
    return this.#lists.get(listId)?.length ?? 0;
  }

  /** The subscriber of a list's ordinal, or undefined (none, or removed). */
  atOrdinal(listId: string, k: number): number | undefined {
    const l = this.#lists.get(listId);
    if (!l || k >= l.length) return undefined;
    const n = l.order.get(k);
    return this.#status.get(n) === GONE ? undefined : n;
  }

  /** Adds a subscriber at the list's next ordinal. */
  add(
    s: { id: string; list_id: string; workspace_id: string; email: string; status: SubscriberStatus; unsubscribe_token: string },
    at: LinePlace,
  ): number {
    const l = this.#entry(s.list_id, s.workspace_id);
    const n = this.#n++;
    for (const col of [
      this.#list,
      this.#status,
      this.#pos,
      this.#idHash,
      this.#idHead,
      this.#emailHash,
      this.#tokenHash,
      this.#ekey,
      this.#ord,
    ])
      col.reserve(this.#n);
    this.#ord.set(n, l.length);
    this.#list.set(n, l.no);
    this.#status.set(n, statusCode(s.status));
    this.#pos.set(n, at.segment * SEGMENT_UNIT + at.offset);
    const id = fnv(s.id);
    const email = this.#emailHashOf(l.no, s.email);
    const token = fnv(s.unsubscribe_token);
    this.#idHash.set(n, id);
    this.#idHead.set(n, hexHead(s.id));
    this.#emailHash.set(n, email);
    this.#tokenHash.set(n, token);
    this.#byId.insert(n, id);
    this.#byEmail.insert(n, email);
    this.#byToken.insert(n, token);
    const ek = key52(s.email);
    this.#ekey.set(n, ek);
    let contacts = this.#contacts.get(s.workspace_id);
    if (!contacts) this.#contacts.set(s.workspace_id, (contacts = new Map()));
    contacts.set(ek, (contacts.get(ek) ?? 0) + 1);
    l.order.reserve(l.length + 1);
    l.order.set(l.length++, n);
    l.counts[statusCode(s.status)]!++;
    return n;
  }

  /** A subscriber's line moved (a change written): where it is now, and its status. */
  update(n: number, at: LinePlace, status: SubscriberStatus): void {
    const l = this.#lists.get(this.#listIds[this.#list.get(n)]!)!;
    l.counts[this.#status.get(n)]!--;
    l.counts[statusCode(status)]!++;
    this.#status.set(n, statusCode(status));
    this.#pos.set(n, at.segment * SEGMENT_UNIT + at.offset);
  }

  remove(n: number): void {
    this.#remove(this.#lists.get(this.#listIds[this.#list.get(n)]!)!, n);
  }

  #remove(l: ListEntry, n: number): void {
    const code = this.#status.get(n);
    if (code === GONE) return;
    l.counts[code]!--;
    this.#status.set(n, GONE);
    const contacts = this.#contacts.get(l.workspace)!;
    const ek = this.#ekey.get(n);
    const left = contacts.get(ek)! - 1;
    if (left) contacts.set(ek, left);
    else contacts.delete(ek);
  }

  /**
   * The list goes at once (nothing finds it or its subscribers); its subscribers are marked gone
   * and leave the workspace's contacts in batches, yielding the event loop between them (a million
   * at once held it for about a second). Resolves when they all have.
   */
  async dropList(listId: string): Promise<void> {
    const l = this.#lists.get(listId);
    if (!l) return;
    this.#lists.delete(listId);
    for (let k = 0; k < l.length; k++) {
      this.#remove(l, l.order.get(k));
      if (k % DROP_BATCH === DROP_BATCH - 1) await new Promise((r) => setImmediate(r));
    }
  }

  where(n: number): LinePlace {
    const p = this.#pos.get(n);
    const segment = Math.floor(p / SEGMENT_UNIT);
    return { segment, offset: p - segment * SEGMENT_UNIT };
  }

  ordinal(n: number): number {
    return this.#ord.get(n);
  }

  listOf(n: number): string {
    return this.#listIds[this.#list.get(n)]!;
  }

  #probe(table: HashSlots, hash: number, list: number | null): number[] {
    const out: number[] = [];
    table.probe(hash, (e) => {
      if (this.#status.get(e) !== GONE && (list === null || this.#list.get(e) === list)) out.push(e);
    });
    return out;
  }

  /** Live subscribers of the list whose id hashes as `id`'s (the caller confirms on disk). */
  byId(listId: string, id: string): number[] {
    const l = this.#lists.get(listId);
    return l ? this.#probe(this.#byId, fnv(id), l.no) : [];
  }

  /** Live subscribers of the list whose id may start with `prefix` (hexHead; the caller confirms on disk). */
  withPrefix(listId: string, prefix: string): number[] {
    const l = this.#lists.get(listId);
    const test = headTest(prefix);
    if (!l || !test) return [];
    const out: number[] = [];
    for (let k = 0; k < l.length; k++) {
      const n = l.order.get(k);
      if (this.#status.get(n) !== GONE && test(this.#idHead.get(n))) out.push(n);
    }
    return out;
  }

  byEmail(listId: string, email: string): number[] {
    const l = this.#lists.get(listId);
    return l ? this.#probe(this.#byEmail, this.#emailHashOf(l.no, email), l.no) : [];
  }

  /** Live subscribers of any list whose token hashes as `token`'s. */
  byToken(token: string): number[] {
    return this.#probe(this.#byToken, fnv(token), null);
  }

  /** Whether the workspace has this email on one of its lists. */
  hasContact(workspaceId: string, email: string): boolean {
    return this.#contacts.get(workspaceId)?.has(key52(email)) ?? false;
  }

  contacts(workspaceId: string): number {
    return this.#contacts.get(workspaceId)?.size ?? 0;
  }

  count(listId: string): number {
    return this.#lists.get(listId)?.live ?? 0;
  }

  /** A page of a list's subscribers, oldest first, optionally of one status: their numbers and the total. */
  /**
   * Active subscribers after ordinal position `from` (a position is ordinal + 1; 0 is before the
   * first), at most `limit`, with the position of the last one looked at and whether the list ended.
   */
  activeAfter(listId: string, from: number, limit: number): { items: number[]; cursor: number; done: boolean } {
    const l = this.#lists.get(listId);
    if (!l) return { items: [], cursor: from, done: true };
    const active = statusCode('active');
    const items: number[] = [];
    let k = from;
    for (; k < l.length && items.length < limit; k++) {
      const n = l.order.get(k);
      if (this.#status.get(n) === active) items.push(n);
    }
    return { items, cursor: k, done: k >= l.length };
  }

  page(listId: string, status: SubscriberStatus | undefined, offset: number, limit: number): { items: number[]; total: number } {
    const l = this.#lists.get(listId);
    if (!l) return { items: [], total: 0 };
    const want = status === undefined ? -1 : statusCode(status);
    const total = want === -1 ? l.live : l.counts[want]!;
    const items: number[] = [];
    let skipped = 0;
    for (let k = 0; k < l.length && items.length < limit && skipped + items.length < total; k++) {
      const n = l.order.get(k);
      const code = this.#status.get(n);
      if (code === GONE || (want !== -1 && code !== want)) continue;
      if (skipped < offset) skipped++;
      else items.push(n);
    }
    return { items, total };
  }
}
