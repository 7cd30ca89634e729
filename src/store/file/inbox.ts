// File store: the team inbox. What the MX received is one `inbound` line per message in its own
// day-partitioned journal (inbox/DAY.jsonl, dropped by --inbox-retention-days), holding the items
// and what they change; the message aggregate applies the changes from the same line
// (messages.ts), and the suppressions are written to their journal first (as a job's outcome does:
// a crash between the two adds them again, harmlessly, when the sender retries). Sent copies are
// the sends' contents, read from the accept lines of the mail journal. Memory holds only the
// compact index of inbox-index.ts (numbers, no strings); what a list shows is read from the lines.
import { sentItem, storageCharge, type InboxItem, type InboxSummary, type InboxThread } from '../../model/inbox.js';
import type { InboxStore } from '../port/inbox.js';
import type { SuppressionStore } from '../port/suppressions.js';
import { fnv } from './columns.js';
import { InboxIndex, type ItemRef } from './inbox-index.js';
import { dayOf, type Journal } from './journal.js';
import type { AcceptLine } from './messages.js';
import type { Line, Replay } from './replay.js';
import { all, each, shape } from './shapes.js';

/** The key of an inbound line that holds its items' bodies: written last, so a list reads the line only up to it. */
const BODIES = 'item_bodies';

/**
 * The message itself is the line's attachment (journal.ts): base64 on the line just before, once
 * for all items, `raw_length` characters long. So the journal read at every start passes over the
 * messages without parsing them, and storing one costs no JSON encoding of it (building the line
 * as one string, JSON.stringify scanning the whole message and the string then encoded again for
 * the write, cost the MX more than all the rest of storing a message). Lines written before kept it
 * in each item.
 *
 * `items` hold what a list shows (InboxSummary) and `item_bodies`, the line's last key, the rest of
 * each item in the same order (headers, bodies, envelope, checks), so that a list reads a line only
 * up to its bodies. Lines written before held whole items in `items`.
 */
export interface InboundLine extends Line {
  t: 'inbound';
  raw_length?: number;
  items: Array<InboxSummary | StoredItem>;
  updates: import('../../model/message.js').MessagePatch[];
  outbox: import('../../model/event.js').OutboxEvent[];
  events: import('../../model/tracking.js').MessageEvent[];
  suppressions: import('../../model/suppression.js').Suppression[];
  item_bodies?: StoredBody[];
}

/** What an item holds besides its summary. */
type Body = Omit<InboxItem, keyof InboxSummary>;

/**
 * An item's body as its line holds it. Its header block is the start of the message, which the
 * line's attachment already holds: then only its length is written (`headers_length`) and the
 * block is cut from the message when the item is read, rather than written twice (a real message's
 * header block, Received and DKIM-Signature lines and all, is often half of it, and JSON-escaped on
 * the MX's thread). Headers that are not the message's start, and lines written before, keep them.
 */
type StoredBody = Omit<Body, 'headers'> & ({ headers: string } | { headers?: undefined; headers_length: number });
/** A whole item, as lines written before held it. */
type StoredItem = InboxSummary & StoredBody;

function storedBody(item: InboxItem, raw: Buffer): StoredBody {
  const { cc, in_reply_to, references, headers, text, html, envelope, auth, raw: _ } = item;
  const body = { cc, in_reply_to, references, text, html, envelope, ...(auth === undefined ? {} : { auth }), raw: null };
  const n = headers.length;
  if (n === 0 || n > raw.length || raw.toString('latin1', 0, n) !== headers) return { ...body, headers };
  return { ...body, headers_length: n };
}

/** The item as the store gives it: its header block cut from the message (base64) where the line holds only its length. */
function restored(summary: InboxSummary, body: StoredBody, base64: string): InboxItem {
  const { headers, ...rest } = body as StoredBody & { headers_length?: number };
  const { headers_length: n, ...kept } = rest;
  const item = { ...summaryOf(summary), ...kept, headers: '' } as InboxItem;
  if (typeof headers === 'string') item.headers = headers;
  else item.headers = Buffer.from(base64.slice(0, Math.ceil(n! / 3) * 4), 'base64').toString('latin1', 0, n);
  return item;
}

/** A received item deleted from the team inbox, written into the item's own day so that it leaves with it. */
export interface InboxRemovedLine extends Line {
  t: 'inbox_removed';
  at: string;
  workspace_id: string;
  id: string;
  /** Where the item's line lies in that day, and its size (absent on lines written before). */
  segment?: number;
  offset?: number;
  size?: number;
}

/** The line kinds of the inbox journal. */
export function inboxLines(r: Replay): void {
  r.kind('inbox_removed', shape({ at: 's', workspace_id: 's', id: 's' }));
  r.kind('inbound', all(shape({ at: 's', items: 'a', updates: 'a', outbox: 'a', events: 'a', suppressions: 'a' }), each('items', shape({ id: 's', workspace_id: 's', thread_id: 's', kind: 's', created_at: 's' }))));
}

const summaryOf = (i: InboxSummary): InboxSummary => ({
  id: i.id, workspace_id: i.workspace_id, folder: i.folder, kind: i.kind, thread_id: i.thread_id, from: i.from, to: [...i.to], subject: i.subject,
  message_id: i.message_id, size: i.size, message_ref: i.message_ref, note: i.note, created_at: i.created_at,
});

/** The file store's inbox and what the store runs once the journals are read. */
export interface FileInbox {
  store: InboxStore;
  /** Applies deletions written before they named where their item lies (found by reading the items). */
  settle(): Promise<void>;
  /** Bytes the index holds in memory. */
  readonly indexBytes: number;
}

export function fileInbox(
  journal: Journal<Line>,
  replay: Replay,
  mailReplay: Replay,
  mail: Journal<Line>,
  suppressions: SuppressionStore,
  onMessagesPurged: (fn: (days: string[]) => void) => void,
): FileInbox {
  const index = new InboxIndex();
  /** Workspace → day → bytes of its received items stored that day (storageCharge). */
  const usage = new Map<string, Map<string, number>>();
  const charge = (ws: string, day: string, bytes: number) => {
    let days = usage.get(ws);
    if (!days) usage.set(ws, (days = new Map()));
    days.set(day, (days.get(day) ?? 0) + bytes);
  };
  /** Items whose deletion is being written. */
  const removing = new Set<string>();
  /** Deletions read at start that do not say where their item lies (lines written before). */
  const unplaced: InboxRemovedLine[] = [];

  // Items are read through refs taken before any await (InboxIndex.ref).
  /** The line of an item: a list's part of it (`whole` false) or all of it. */
  const lineOf = async (r: ItemRef, whole: boolean): Promise<InboundLine | AcceptLine | null> => {
    if (r.sent) return (await mail.recordFrom(r.at)) as AcceptLine | null;
    return (await journal.recordFrom(r.at, whole ? undefined : BODIES)) as InboundLine | null;
  };
  /** Which of a line's items is the item. */
  const itemIn = (r: ItemRef, line: InboundLine): number => line.items.findIndex((i) => i.workspace_id === r.workspace && fnv(i.id) === r.idHash);
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
    if (line.t === 'accept') return sentItem((line as AcceptLine).content);
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
    if (line.offset === undefined || line.size === undefined) return void unplaced.push(line);
    const partition = where?.partition ?? dayOf(line.at);
    const n = placedAt(line.workspace_id, line.id, { partition, segment: line.segment ?? 0, offset: line.offset });
    if (n === undefined) return;
    index.remove([n]);
    charge(line.workspace_id, partition, -storageCharge(line.size));
  });
  replay.on<InboundLine>('inbound', (line, at) => {
    if (!at) return;
    const where = { partition: at.partition, segment: at.segment ?? 0, offset: at.offset };
    for (const item of line.items) {
      index.add(item, where);
      charge(item.workspace_id, at.partition, storageCharge(item.size));
    }
  });
  mailReplay.on<AcceptLine>('accept', (line, at) => {
    if (at) index.add(sentItem(line.content), { partition: at.partition, segment: at.segment ?? 0, offset: at.offset });
  });
  // Both journals are read before threads are put in order, once.
  index.beginBulk();
  replay.afterReplay(() => index.finishBulk());
  onMessagesPurged((days) => {
    for (const day of days) index.removeDay(day, true);
  });

  const store: InboxStore = {
    receive: async (d) => {
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
      const where = await journal.appendLocated(dayOf(line.at), line, base64);
      replay.apply(line, where);
    },
    list: async (workspaceId, q) => {
      const thread = q.thread_id === undefined ? undefined : index.thread(workspaceId, q.thread_id);
      const page = index.list(workspaceId, { sent: q.folder === 'sent', kind: q.kind, thread, offset: q.offset, limit: q.limit });
      return { data: await summaries(page.items), total: page.total };
    },
    get: async (workspaceId, id) => {
      const found = await find(workspaceId, id);
      return found ? full(found.ref) : null;
    },
    threads: async (workspaceId, q) => {
      const page = index.threads(workspaceId, q);
      const data = await Promise.all(
        page.threads.map(async (t): Promise<InboxThread | null> => {
          const [last, first] = await Promise.all([summary(index.ref(t.newest)), t.oldest === t.newest ? null : summary(index.ref(t.oldest))]);
          if (!last) return null;
          // The subject is the first item's; the sender and kind the newest's (as in Postgres).
          return { thread_id: last.thread_id, subject: (first ?? last).subject, count: t.count, last_at: last.created_at, last_from: last.from, last_kind: last.kind };
        }),
      );
      return { data: data.filter((t): t is InboxThread => t !== null), total: page.total };
    },
    threadOf: async (workspaceId, messageIds) => {
      for (const mid of messageIds) {
        for (const ref of index.byMessageId(workspaceId, mid).map((n) => index.ref(n))) {
          const s = await summary(ref);
          if (s?.message_id === mid) return s.thread_id;
        }
      }
      return null;
    },
    about: async (workspaceId, ref) => {
      const mine = index.about(ref).filter((n) => index.workspaceOf(n) === workspaceId);
      return (await summaries(mine)).filter((s) => s.message_ref === ref);
    },
    usage: async (workspaceId) => {
      let bytes = 0;
      for (const b of usage.get(workspaceId)?.values() ?? []) bytes += b;
      return bytes;
    },
    remove: async (workspaceId, id) => {
      // Two deletes of one item at once: the first deletes it, the second finds nothing (as a row delete would).
      if (removing.has(`${workspaceId}/${id}`)) return false;
      removing.add(`${workspaceId}/${id}`);
      try {
        const found = await find(workspaceId, id);
        if (!found || found.summary.folder !== 'inbox') return false;
        const { partition, segment, offset } = found.ref.at;
        const line: InboxRemovedLine = { t: 'inbox_removed', at: new Date().toISOString(), workspace_id: workspaceId, id, segment, offset, size: found.summary.size };
        await journal.append(partition, [line]);
        replay.apply(line, { partition, offset: 0, length: 0 });
        return true;
      } finally {
        removing.delete(`${workspaceId}/${id}`);
      }
    },
    purge: async (before) => {
      const cutoff = dayOf(before);
      let n = 0;
      for (const day of await journal.partitions()) {
        if (day >= cutoff) break;
        await journal.drop(day);
        n += index.removeDay(day, false);
        for (const days of usage.values()) days.delete(day);
      }
      return n;
    },
  };

  return {
    store,
    settle: async () => {
      for (const line of unplaced.splice(0)) {
        const found = await find(line.workspace_id, line.id);
        const n = found && found.summary.folder === 'inbox' ? placedAt(line.workspace_id, line.id, found.ref.at) : undefined;
        if (n === undefined) continue;
        index.remove([n]);
        charge(line.workspace_id, found!.ref.at.partition, -storageCharge(found!.summary.size));
      }
    },
    get indexBytes() {
      return index.bytes;
    },
  };
}
