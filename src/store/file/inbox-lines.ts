// File store: the lines of the inbox journal (inbox/DAY.jsonl) as they are on disk, and how an item
// is read back from one. What the store keeps in memory about them is inbox-index.ts; the store
// itself, inbox.ts.
import type { OutboxEvent } from '../../model/event.js';
import type { InboxItem, InboxSummary } from '../../model/inbox.js';
import type { MessagePatch } from '../../model/message.js';
import type { Suppression } from '../../model/suppression.js';
import type { MessageEvent } from '../../model/tracking.js';
import type { Line, Replay } from './replay.js';
import { all, each, shape } from './shapes.js';
import type { Keep } from './segment-rewrite.js';

/** The key of an inbound line that holds its items' bodies: written last, so a list reads the line only up to it. */
export const BODIES = 'item_bodies';

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
  updates: MessagePatch[];
  outbox: OutboxEvent[];
  events: MessageEvent[];
  suppressions: Suppression[];
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
export type StoredBody = Omit<Body, 'headers'> & ({ headers: string } | { headers?: undefined; headers_length: number });
/** A whole item, as lines written before held it. */
export type StoredItem = InboxSummary & StoredBody;

export function storedBody(item: InboxItem, raw: Buffer): StoredBody {
  const { cc, in_reply_to, references, headers, text, html, envelope, auth, raw: _ } = item;
  const body = { cc, in_reply_to, references, text, html, envelope, ...(auth === undefined ? {} : { auth }), raw: null };
  const n = headers.length;
  if (n === 0 || n > raw.length || raw.toString('latin1', 0, n) !== headers) return { ...body, headers };
  return { ...body, headers_length: n };
}

/** The item as the store gives it: its header block cut from the message (base64) where the line holds only its length. */
export function restored(summary: InboxSummary, body: StoredBody, base64: string): InboxItem {
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
  r.kind(
    'inbound',
    all(
      shape({ at: 's', items: 'a', updates: 'a', outbox: 'a', events: 'a', suppressions: 'a' }),
      each('items', shape({ id: 's', workspace_id: 's', thread_id: 's', kind: 's', created_at: 's' })),
    ),
  );
}

export const summaryOf = (i: InboxSummary): InboxSummary => ({
  id: i.id,
  workspace_id: i.workspace_id,
  folder: i.folder,
  kind: i.kind,
  thread_id: i.thread_id,
  from: i.from,
  ...(i.from_name ? { from_name: i.from_name } : {}),
  to: [...i.to],
  subject: i.subject,
  message_id: i.message_id,
  size: i.size,
  message_ref: i.message_ref,
  note: i.note,
  created_at: i.created_at,
  ...(i.campaign_id ? { campaign_id: i.campaign_id } : {}),
});

/**
 * What a compaction (segment-rewrite.ts) keeps of a line of the inbox journal lying `at`: an
 * `inbound` line with its live items only (and its message while one is left), or without items
 * when it changed message records (a reply, a bounce: read again at every start), or nothing; a
 * deletion of an item of the same segment goes with it. `live` says whether an item at a place is.
 */
export function compacted(
  line: Line,
  at: { partition: string; segment: number; offset: number },
  live: (item: InboundLine['items'][number], where: typeof at) => boolean,
): Keep<Line> {
  if (line.t === 'inbox_removed') {
    const r = line as InboxRemovedLine;
    return r.offset !== undefined && (r.segment ?? 0) === at.segment ? 'drop' : 'keep';
  }
  if (line.t !== 'inbound') return 'keep';
  const l = line as InboundLine;
  const alive = l.items.map((i) => live(i, at));
  if (alive.every(Boolean)) return 'keep';
  const items = l.items.filter((_, k) => alive[k]);
  if (!items.length && !l.updates.length && !l.events.length && !l.outbox.length) return 'drop';
  const { raw_length, item_bodies, ...rest } = l;
  const attachment = items.length > 0 && raw_length !== undefined;
  // The bodies stay last (BODIES).
  const record: InboundLine = {
    ...rest,
    items,
    ...(attachment ? { raw_length } : {}),
    ...(item_bodies ? { item_bodies: item_bodies.filter((_, k) => alive[k]) } : {}),
  };
  return { record, attachment };
}
