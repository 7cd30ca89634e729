// File store: the team inbox. What the MX received is one `inbound` line per message in its own
// day-partitioned journal (inbox/DAY.jsonl, dropped by --inbox-retention-days), holding the items
// and what they change; the message aggregate applies the changes from the same line
// (messages.ts), and the suppressions are written to their journal first (as a job's outcome does:
// a crash between the two adds them again, harmlessly, when the sender retries). Sent copies are
// the sends' contents, read from the accept lines of the mail journal. Memory holds summaries and
// where each body lies, never the bodies.
import { sentItem, storageCharge, type InboxItem, type InboxSummary, type InboxThread, type InboundDelivery } from '../../model/inbox.js';
import type { InboxStore } from '../port/inbox.js';
import type { SuppressionStore } from '../port/suppressions.js';
import { dayOf, type Journal, type LineAt } from './journal.js';
import type { AcceptLine } from './messages.js';
import type { Line, Replay } from './replay.js';
import { all, each, shape } from './shapes.js';

/**
 * The message itself is the line's attachment (journal.ts): base64 on the line just before, once
 * for all items, `raw_length` characters long. So the journal read at every start passes over the
 * messages without parsing them, and storing one costs no JSON encoding of it (building the line
 * as one string, JSON.stringify scanning the whole message and the string then encoded again for
 * the write, cost the MX more than all the rest of storing a message). Lines written before kept it
 * in each item.
 */
export interface InboundLine extends Line, Omit<InboundDelivery, 'raw' | 'items'> {
  t: 'inbound';
  raw_length?: number;
  items: StoredItem[];
}

/**
 * An item as its line holds it. Its header block is the start of the message, which the line's
 * attachment already holds: then only its length is written (`headers_length`) and the block is
 * cut from the message when the item is read, rather than written twice (a real message's header
 * block, Received and DKIM-Signature lines and all, is often half of it, and JSON-escaped on the
 * MX's thread). Headers that are not the message's start, and lines written before, keep them.
 */
type StoredItem = Omit<InboxItem, 'headers'> & ({ headers: string } | { headers?: undefined; headers_length: number });

function stored(item: InboxItem, raw: Buffer): StoredItem {
  const n = item.headers.length;
  if (n === 0 || n > raw.length || raw.toString('latin1', 0, n) !== item.headers) return item;
  // `headers: undefined`: JSON leaves the key out; the caller's item is not changed.
  return { ...item, headers: undefined, headers_length: n };
}

/** The item as the store gives it: its header block cut from the message (base64) where the line holds only its length. */
function restored(item: StoredItem, base64: string): InboxItem {
  if (typeof item.headers === 'string') return item as InboxItem;
  const { headers_length: n, ...rest } = item as Extract<StoredItem, { headers_length: number }>;
  return { ...rest, headers: Buffer.from(base64.slice(0, Math.ceil(n / 3) * 4), 'base64').toString('latin1', 0, n) };
}

/**
 * An item deleted from the team inbox, written into the item's own day so that it leaves with it; the
 * message's bytes stay in that day's file until retention drops the day.
 */
export interface InboxRemovedLine extends Line {
  t: 'inbox_removed';
  at: string;
  workspace_id: string;
  id: string;
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

interface Kept {
  summary: InboxSummary;
  at: LineAt | undefined;
  /** Deleted or purged: skipped by reads until its list is compacted. */
  gone?: true;
}

/** Drops the gone entries of a list in place (no spread: a list may hold more than a call's arguments). */
function compact(list: Kept[]): void {
  let n = 0;
  for (const k of list) if (!k.gone) list[n++] = k;
  list.length = n;
}

/** One workspace's inbox in memory: both folders, in the order stored. */
class Folders {
  readonly inbox: Kept[] = [];
  readonly sent: Kept[] = [];
  /** Message-ID → thread, over both folders. */
  readonly threadByMid = new Map<string, string>();
  bytes = 0;
  /** Gone entries still in the two lists: compacted once they are half of them. */
  stale = 0;
}

export function fileInbox(
  journal: Journal<Line>,
  replay: Replay,
  mail: Replay,
  readMail: (at: LineAt) => Promise<Line | null>,
  suppressions: SuppressionStore,
  onMessagesPurged: (fn: (contentIds: string[]) => void) => void,
): InboxStore {
  const workspaces = new Map<string, Folders>();
  const byId = new Map<string, Kept>();
  /** Items whose deletion is being written. */
  const removing = new Set<string>();
  /** message record id → the received items about it. */
  const byRef = new Map<string, InboxSummary[]>();
  const folders = (ws: string) => {
    let f = workspaces.get(ws);
    if (!f) workspaces.set(ws, (f = new Folders()));
    return f;
  };
  const keep = (s: InboxSummary, at: LineAt | undefined) => {
    const f = folders(s.workspace_id);
    const k: Kept = { summary: s, at };
    (s.folder === 'sent' ? f.sent : f.inbox).push(k);
    byId.set(s.id, k);
    if (s.message_id && !f.threadByMid.has(s.message_id)) f.threadByMid.set(s.message_id, s.thread_id);
    if (s.folder === 'inbox') f.bytes += storageCharge(s.size);
    if (s.message_ref) {
      const list = byRef.get(s.message_ref) ?? [];
      list.push(s);
      byRef.set(s.message_ref, list);
    }
  };
  /** Forgets items: one at a time (a deletion) costs no walk of the workspace's lists. */
  const forget = (ids: Set<string>) => {
    for (const id of ids) {
      const k = byId.get(id);
      if (!k) continue;
      byId.delete(id);
      k.gone = true;
      const f = workspaces.get(k.summary.workspace_id)!;
      f.stale++;
      if (k.summary.folder === 'inbox') f.bytes -= storageCharge(k.summary.size);
      if (k.summary.message_id && f.threadByMid.get(k.summary.message_id) === k.summary.thread_id) f.threadByMid.delete(k.summary.message_id);
      if (k.summary.message_ref) {
        const left = (byRef.get(k.summary.message_ref) ?? []).filter((s) => s.id !== id);
        if (left.length) byRef.set(k.summary.message_ref, left);
        else byRef.delete(k.summary.message_ref);
      }
    }
    for (const f of workspaces.values()) {
      if (f.stale * 2 <= f.inbox.length + f.sent.length) continue;
      compact(f.inbox);
      compact(f.sent);
      f.stale = 0;
    }
  };

  inboxLines(replay);
  replay.on<InboxRemovedLine>('inbox_removed', (line) => forget(new Set([line.id])));
  replay.on<InboundLine>('inbound', (line, at) => {
    for (const item of line.items) keep(summaryOf(item), at);
  });
  mail.on<AcceptLine>('accept', (line, at) => keep(summaryOf(sentItem(line.content)), at));
  onMessagesPurged((contentIds) => forget(new Set(contentIds)));

  const read = async (k: Kept): Promise<InboxItem | null> => {
    if (!k.at) return null;
    if (k.summary.folder === 'sent') {
      const line = (await readMail(k.at)) as AcceptLine | null;
      return line?.t === 'accept' && line.content.id === k.summary.id ? sentItem(line.content) : null;
    }
    const line = (await journal.readAt(k.at)) as InboundLine | null;
    const item = line?.items.find((i) => i.id === k.summary.id);
    if (!item) return null;
    if (item.raw !== null || line!.raw_length === undefined) return restored(item, item.raw ?? '');
    const base64 = await journal.attachmentAt(k.at, line!.raw_length);
    return base64 === null ? null : { ...restored(item, base64), raw: base64 };
  };

  return {
    receive: async (d) => {
      for (const s of d.suppressions) await suppressions.add(s);
      for (const l of d.lifted ?? []) {
        const [s] = await suppressions.find(l.workspace_id, [l.address]);
        if (s?.reason === 'complaint') await suppressions.remove(l.workspace_id, l.address);
      }
      const { raw, lifted: _, ...rest } = d;
      const base64 = raw.toString('base64');
      const line: InboundLine = {
        t: 'inbound',
        at: d.items[0]?.created_at ?? new Date().toISOString(),
        ...rest,
        items: d.items.map((i) => stored(i, raw)),
        suppressions: d.suppressions.map((s) => ({ ...s })),
        raw_length: base64.length,
      };
      const at = await journal.appendLocated(dayOf(line.at), line, base64);
      replay.apply(line, at);
    },
    list: async (workspaceId, q) => {
      const f = workspaces.get(workspaceId);
      const list = f ? (q.folder === 'sent' ? f.sent : f.inbox) : [];
      const data: InboxSummary[] = [];
      let total = 0;
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i]!.gone) continue;
        const s = list[i]!.summary;
        if ((q.thread_id && s.thread_id !== q.thread_id) || (q.kind && s.kind !== q.kind)) continue;
        if (total >= q.offset && data.length < q.limit) data.push(summaryOf(s));
        total++;
      }
      return { data, total };
    },
    get: async (workspaceId, id) => {
      const k = byId.get(id);
      return k && k.summary.workspace_id === workspaceId ? read(k) : null;
    },
    threads: async (workspaceId, q) => {
      const f = workspaces.get(workspaceId);
      const threads = new Map<string, InboxThread & { first_at: string }>();
      for (const k of [...(f?.inbox ?? []), ...(f?.sent ?? [])]) {
        if (k.gone) continue;
        const s = k.summary;
        const t = threads.get(s.thread_id);
        if (!t) threads.set(s.thread_id, { thread_id: s.thread_id, subject: s.subject, count: 1, last_at: s.created_at, last_from: s.from, last_kind: s.kind, first_at: s.created_at });
        else {
          t.count++;
          // The subject is the first item's; the sender and kind the newest's (as in Postgres).
          if (s.created_at < t.first_at) Object.assign(t, { subject: s.subject, first_at: s.created_at });
          if (s.created_at > t.last_at) Object.assign(t, { last_at: s.created_at, last_from: s.from, last_kind: s.kind });
        }
      }
      const all = [...threads.values()]
        .sort((a, b) => (a.last_at < b.last_at ? 1 : a.last_at > b.last_at ? -1 : a.thread_id < b.thread_id ? -1 : 1))
        .map(({ first_at: _, ...t }) => t);
      return { data: all.slice(q.offset, q.offset + q.limit), total: all.length };
    },
    threadOf: async (workspaceId, messageIds) => {
      const f = workspaces.get(workspaceId);
      for (const mid of messageIds) {
        const t = f?.threadByMid.get(mid);
        if (t) return t;
      }
      return null;
    },
    about: async (workspaceId, ref) => (byRef.get(ref) ?? []).filter((s) => s.workspace_id === workspaceId).map(summaryOf),
    usage: async (workspaceId) => workspaces.get(workspaceId)?.bytes ?? 0,
    remove: async (workspaceId, id) => {
      const k = byId.get(id);
      // Two deletes of one item at once: the first deletes it, the second finds nothing (as a row delete would).
      if (!k || k.summary.workspace_id !== workspaceId || k.summary.folder !== 'inbox' || removing.has(id)) return false;
      removing.add(id);
      try {
        const line: InboxRemovedLine = { t: 'inbox_removed', at: new Date().toISOString(), workspace_id: workspaceId, id };
        await journal.append(k.at?.partition ?? dayOf(line.at), [line]);
        replay.apply(line);
        return true;
      } finally {
        removing.delete(id);
      }
    },
    purge: async (before) => {
      const cutoff = dayOf(before);
      const gone = new Set<string>();
      for (const day of await journal.partitions()) {
        if (day >= cutoff) break;
        for (const l of await journal.read(day)) if (l.t === 'inbound') for (const i of (l as InboundLine).items) gone.add(i.id);
        await journal.drop(day);
      }
      const n = [...gone].filter((id) => byId.has(id)).length;
      forget(gone);
      return n;
    },
  };
}
