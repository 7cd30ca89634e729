import type { Arrival } from './attempt.js';

// Messages (spec.md "Message": one record per recipient), the content a send stores once for all
// its recipients, and the outbound jobs that hand copies off.
export type MessageStatus = 'queued' | 'sent' | 'bounced';
/** `system`: svc's own mail (invitations, trial warnings), never counted against a quota. */
export type MessageSource = 'api' | 'relay' | 'broadcast' | 'sequence' | 'confirmation' | 'system';
export type RecipientKind = 'to' | 'cc' | 'bcc';

/** One record per recipient (spec.md "Message"). */
export interface Message {
  id: string;
  workspace_id: string;
  /** The send it belongs to: its content, shared by all its recipients. */
  content_id: string;
  source: MessageSource;
  /** Bare sender address. */
  from: string;
  to: string;
  kind: RecipientKind;
  subject: string;
  status: MessageStatus;
  open_count: number;
  click_count: number;
  reply_count: number;
  first_open_after_seconds: number | null;
  /** Message-ID header without angle brackets. */
  message_id: string;
  error: string | null;
  /** What the service changed or dropped on the way in (the relay drops attachments). */
  notes: string[];
  created_at: string;
  sent_at: string | null;
  opened_at: string | null;
  clicked_at: string | null;
  replied_at: string | null;
  bounced_at: string | null;
  /**
   * Hand-off attempts so far, the last temporary reply or failure, and when the next attempt is
   * due (null once sent or bounced). Absent on records written before they were kept: 0, null, null.
   */
  attempts?: number;
  last_error?: string | null;
  next_attempt_at?: string | null;
  /**
   * This recipient's own token (open pixel, tracked links, unsubscribe): unguessable, one per
   * record, so that what a copy reports is tied to its one recipient.
   */
  token: string;
  /** How it came in (the key, the Idempotency-Key); absent on records written before it was kept. */
  via?: Arrival;
  /**
   * List mail (broadcast, sequence step): the subscriber this copy is for, whose name and
   * unsubscribe token the copy is composed with (merge variables, unsubscribe link and headers).
   */
  subscriber?: CopySubscriber;
  /** The campaign (broadcast) this copy belongs to; absent on other mail. */
  campaign_id?: string;
}

/** What a copy of list mail needs of its subscriber. */
export interface CopySubscriber {
  id: string;
  /** The list it is on (the copy's `List-Id`). */
  list_id: string;
  name: string;
  unsubscribe_token: string;
}

export interface Party {
  name: string | null;
  address: string;
}

/** What one send composes from, stored once for all its recipients. */
export interface SendContent {
  id: string;
  workspace_id: string;
  source: MessageSource;
  from: string;
  from_name: string | null;
  domain_id: string;
  /** Recipients shown in To: and Cc: (bcc never appear). */
  to: Party[];
  cc: Party[];
  subject: string;
  html: string | null;
  text: string | null;
  message_id: string;
  /** Notes for the log, e.g. "2 attachments dropped" (relay). */
  notes: string[];
  created_at: string;
  /** Files and inline images of relayed mail, composed into every copy; absent when none. */
  attachments?: Attachment[];
  /**
   * Relayed mail: the message as the relay received it (base64, line ends made CRLF), kept whole
   * before the 250. Its text, HTML and attachments are read from it when it is composed (html and
   * text are null here until then); the relay reads only its header block (To, Cc, Subject).
   */
  raw?: string;
  /**
   * A reply from the team inbox: the thread its Sent copy joins and the message it answers (the
   * In-Reply-To and References headers). Absent on other sends: each starts a thread of its own.
   */
  thread_id?: string;
  in_reply_to?: string | null;
  references?: string[];
  /** Broadcasts: hidden preview text put first in the HTML (what a mail client lists beside the subject). */
  preheader?: string;
  /** A broadcast's batch: its campaign. */
  campaign_id?: string;
  /**
   * false: not a row of the Sent folder. A broadcast is one row there (its first batch's content,
   * which stands for the campaign), not one per batch of its copies.
   */
  in_sent?: false;
}

/** One attachment or inline part, its bytes in base64. */
export interface Attachment {
  filename: string | null;
  content_type: string;
  /** inline parts are referenced from the HTML by `cid:` */
  disposition: 'attachment' | 'inline';
  cid: string | null;
  content: string;
  /**
   * Content-Type parameters other than name, as the relayed part had them (a text file's charset
   * and format): tokens for names, no control characters in values.
   */
  params?: Record<string, string>;
}

/**
 * One hand-off: the recipients of one send on one domain, delivered in one SMTP transaction when
 * they share one copy, or one transaction per copy when each has its own. Claimed with a lease, so
 * a crashed worker's jobs are taken by another once the lease ends.
 */
export interface OutboundJob {
  id: string;
  workspace_id: string;
  content_id: string;
  /** Recipient domain (ASCII). */
  domain: string;
  message_ids: string[];
  attempts: number;
  next_attempt_at: string;
  created_at: string;
  last_error: string | null;
  /** Its class in the queue (PRIORITY): transactional mail is claimed ahead of bulk; absent means transactional (0). */
  priority?: number;
  /** Held by the operator (a restored backup): never claimed until `svc queue retry` lets it go. */
  held?: boolean;
}

/**
 * Queue classes: transactional mail (a password reset, a reply, a confirmation) is claimed before
 * bulk mail (broadcasts, sequences) whatever was queued first; within a class the workspaces take
 * turns (QueueStore.claim).
 */
export const PRIORITY = { transactional: 0, bulk: 1 } as const;
export const priorityOf = (source: MessageSource): number =>
  source === 'broadcast' || source === 'sequence' ? PRIORITY.bulk : PRIORITY.transactional;

export type MessagePatch = Pick<Message, 'id'> &
  Partial<Pick<Message, 'status' | 'error' | 'sent_at' | 'bounced_at' | 'attempts' | 'last_error' | 'next_attempt_at'>>;

export interface MessageQuery {
  status?: MessageStatus;
  /** Case-insensitive substring of the recipient. */
  recipient?: string;
  /** The Message-ID header, exactly, without angle brackets. */
  messageId?: string;
  /** Case-insensitive substring of the sender address. */
  from?: string;
  /** Created at or after this time. */
  since?: string;
  /** Created before this time. */
  until?: string;
  limit: number;
  offset: number;
}
