// The team inbox (spec.md "What the service does"): what the inbound MX received for a workspace's
// addresses and the return paths of its mail, and the Sent copies of what it sent. A received item
// keeps its raw message; a Sent copy is the send's own content (the message log), so it leaves with
// the log after --retention-days and is not charged to storage.
import type { OutboxEvent } from './event.js';
import type { MessagePatch, SendContent } from './message.js';
import type { Suppression } from './suppression.js';
import type { MessageEvent } from './tracking.js';

export type InboxFolder = 'inbox' | 'sent';
/** CONTRACT.md `svc inbox list`: mail, reply, auto_reply, bounce, complaint (inbox) or sent. */
export const INBOX_KINDS = ['mail', 'reply', 'auto_reply', 'bounce', 'complaint', 'sent'] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

/** What a list shows of an item: no bodies. */
export interface InboxSummary {
  id: string;
  workspace_id: string;
  folder: InboxFolder;
  kind: InboxKind;
  thread_id: string;
  /** The From header's address (received) or the sender (sent). */
  from: string;
  /** The From header's display name (received) or the sender's name (sent); absent or null when none. */
  from_name?: string | null;
  to: string[];
  subject: string;
  /** The Message-ID header without angle brackets; null when the mail had none. */
  message_id: string | null;
  /** Bytes of the received message as kept (0 for Sent copies); it counts against the workspace's storage as storageCharge(size). */
  size: number;
  /** The message record this item is about (a reply, a bounce, a complaint), when one matched. */
  message_ref: string | null;
  /** Why it got its kind, or what the MX could not do with it (a message over the parse limits). */
  note: string | null;
  created_at: string;
  /** A Sent row that stands for a broadcast: its campaign (its recipients are the campaign's). */
  campaign_id?: string;
}

/** What vouched for a received message (src/inbox/authenticate.ts): the verdict and each check's result. */
export interface InboundAuth {
  /** pass: the From domain vouches for it; fail: DMARC fails; none: nothing vouches for it. */
  verdict: 'pass' | 'fail' | 'none';
  spf: string;
  dkim: string;
  dmarc: string;
  arc: string;
  /** The From domain's DMARC policy when DMARC failed. */
  policy: string | null;
  from_domain: string | null;
  /** Why, in one sentence. */
  summary: string;
}

export interface InboxItem extends InboxSummary {
  cc: string[];
  in_reply_to: string | null;
  references: string[];
  /** The header block as received (or as composed, for a Sent copy). */
  headers: string;
  text: string | null;
  /** Stored as received; never rendered by anything svc prints. */
  html: string | null;
  /** Received items: the SMTP envelope. */
  envelope: { mail_from: string; rcpt_to: string[]; remote_ip: string | null } | null;
  /** Received items: SPF, DKIM, DMARC and the verdict (null for Sent copies and items received before svc checked). */
  auth?: InboundAuth | null;
  /**
   * Received items as read back: the message as it came, base64; null for Sent copies (and on the way
   * in: InboundDelivery.raw) but relayed ones, whose text and HTML are read from it when shown.
   */
  raw: string | null;
}

/**
 * One message the MX took, with everything it changes, stored in one call before the 250: an item
 * per workspace it was for, and what a bounce, a complaint or a reply changes on the records of
 * the mail it is about.
 */
export interface InboundDelivery {
  /** The message as received, once for all its items (whose `raw` is null here: the store keeps this). */
  raw: Buffer;
  items: InboxItem[];
  /** A permanent bounce report: the record becomes bounced (applied only to a record not bounced yet). */
  updates: MessagePatch[];
  outbox: OutboxEvent[];
  /** Reply events (applyEvent in tracking.ts). */
  events: MessageEvent[];
  suppressions: Suppression[];
  /** A `not-spam` report: the complaint suppression of these addresses (only one made for a complaint) is lifted. */
  lifted?: Array<{ workspace_id: string; address: string }>;
}

export interface InboxQuery {
  folder: InboxFolder;
  thread_id?: string;
  kind?: InboxKind;
  limit: number;
  offset: number;
}

export interface InboxThread {
  thread_id: string;
  subject: string;
  /** Items in both folders. */
  count: number;
  last_at: string;
  /** The newest item's sender and kind. */
  last_from: string;
  last_kind: InboxKind;
  /** The newest received item's time; null for a thread of Sent copies only. */
  received_at: string | null;
  /** When the team last marked it read (null: never, or marked unread since). */
  read_at: string | null;
  /** When the team archived it (null: never, or moved back since). */
  archived_at: string | null;
  /** Mail came in since it was last read. */
  unread: boolean;
  /** Archived, and no mail came in since (new mail brings a thread back to the inbox). */
  archived: boolean;
}

/** What the team marked on a thread (the inbox is shared: one state per thread, not per person). */
export interface ThreadState {
  read_at: string | null;
  archived_at: string | null;
}

/** Which threads a listing shows: every thread, those in the inbox (with received mail, not archived), or the archived ones. */
export const THREAD_VIEWS = ['all', 'inbox', 'archived'] as const;
export type ThreadView = (typeof THREAD_VIEWS)[number];

export interface ThreadQuery {
  limit: number;
  offset: number;
  /** Default `all`. */
  view?: ThreadView;
  /** Only threads with an item whose sender, a recipient or subject holds this text (any case). */
  search?: string;
}

/** How a thread's flags follow from its times and the team's marks (both stores). */
export function threadFlags(
  receivedAt: string | null,
  s: ThreadState | undefined,
): Pick<InboxThread, 'read_at' | 'archived_at' | 'unread' | 'archived'> {
  const read_at = s?.read_at ?? null;
  const archived_at = s?.archived_at ?? null;
  return {
    read_at,
    archived_at,
    unread: receivedAt !== null && (read_at === null || read_at < receivedAt),
    archived: archived_at !== null && (receivedAt === null || archived_at >= receivedAt),
  };
}

/** Whether a thread belongs in a view. */
export const inView = (view: ThreadView, receivedAt: string | null, archived: boolean): boolean =>
  view === 'all' || (view === 'archived' ? archived : receivedAt !== null && !archived);

/** Case-insensitive "holds" for a search; the needle is lower-cased by the caller. */
export const matches = (needle: string, s: Pick<InboxSummary, 'from' | 'to' | 'subject'>): boolean =>
  s.subject.toLowerCase().includes(needle) || s.from.toLowerCase().includes(needle) || s.to.some((t) => t.toLowerCase().includes(needle));

/** A send's content as its Sent copy (the headers it was composed with, without the per-recipient ones):
 * its id is the content's, its thread the inbox reply's or else its own. */
export function sentItem(c: SendContent): InboxItem {
  const to = c.to.map((p) => p.address);
  const cc = c.cc.map((p) => p.address);
  const headers = [
    `From: ${c.from_name ? `"${c.from_name}" ` : ''}<${c.from}>`,
    ...(to.length ? [`To: ${to.join(', ')}`] : []),
    ...(cc.length ? [`Cc: ${cc.join(', ')}`] : []),
    `Subject: ${c.subject}`,
    `Message-ID: <${c.message_id}>`,
    ...(c.in_reply_to ? [`In-Reply-To: <${c.in_reply_to}>`] : []),
    `Date: ${new Date(c.created_at).toUTCString()}`,
  ].join('\r\n');
  return {
    id: c.id,
    workspace_id: c.workspace_id,
    folder: 'sent',
    kind: 'sent',
    thread_id: c.thread_id ?? c.id,
    from: c.from,
    from_name: c.from_name,
    to,
    cc,
    subject: c.subject,
    message_id: c.message_id,
    size: 0,
    message_ref: null,
    note: null,
    created_at: c.created_at,
    in_reply_to: c.in_reply_to ?? null,
    references: c.references ?? [],
    headers,
    text: c.text,
    html: c.html,
    envelope: null,
    raw: c.raw ?? null,
    ...(c.campaign_id ? { campaign_id: c.campaign_id } : {}),
  };
}

/**
 * The least a received item counts against a workspace's storage: a filesystem block. Without it
 * 31-byte messages filled a workspace with 426,917 items while using 1.3 % of its quota; every item
 * costs memory and work whatever its size.
 */
export const STORAGE_MIN_CHARGE = 4096;

/** What an item of `size` bytes counts against storage (a Sent copy, size 0, counts nothing). */
export const storageCharge = (size: number): number => (size === 0 ? 0 : Math.max(size, STORAGE_MIN_CHARGE));
