// What a send is, between the ways in (REST, the relay, the inbox's replies, list mail) and the
// pipeline that makes its records (src/send/pipeline.ts): the request, its options and its answer.
import type { Attachment, CopySubscriber, MessageSource } from './message.js';
import type { CampaignProgress } from './campaign.js';
import type { EnrolmentStep } from './sequence.js';
import type { Workspace } from './workspace.js';

export interface Party {
  name: string | null;
  /** local@domain, the domain lowercase ASCII: what nodemailer routes to. */
  address: string;
}

export interface SendRequest {
  from: Party;
  to: Party[];
  cc: Party[];
  bcc: Party[];
  subject: string;
  html: string | null;
  text: string | null;
  /** Only the relay carries them (POST /emails ignores an attachments field, spec.md rule 2). */
  attachments?: Attachment[];
  /** Only the relay: the message as received (base64), its body read when composed (SendContent.raw). */
  raw?: string;
}

export interface SendResult {
  /** The first recipient's message id. */
  id: string;
  status: 'queued';
  queued: true;
  tracking_url: string;
  recipient_count: number;
}

export interface SendOptions {
  source: MessageSource;
  /** Notes kept with the content (for example "attachments dropped" from the relay). */
  notes?: string[];
  /** The Idempotency-Key claim this send completes. */
  idempotency?: { key: string; token: string; fingerprint?: string } | null;
  /** The key that sent it (kept on each record for `svc messages explain`). */
  key?: { id: string; prefix: string } | null;
  /**
   * A reply from the team inbox: its Sent copy joins this thread, it answers this Message-ID
   * (In-Reply-To, References), and it counts against the inbox sends per day, not the API's.
   */
  inbox?: { thread_id: string; in_reply_to: string | null; references: string[] };
  /**
   * List mail (a broadcast's fan-out batch, a sequence step): each recipient (every one in `to`) is
   * a subscriber, whose copy is composed for it alone (To: shows only it; its own Message-ID, merge
   * variables and unsubscribe link). A suppressed subscriber gets no record at all (`skipped`).
   */
  list?: {
    subscribers: Map<string, CopySubscriber>;
    /** Already counted in the send quota (a campaign is debited whole when it is accepted). */
    debited?: boolean;
    /** A broadcast's batch: its campaign and the fan-out's progress, stored with these copies. */
    campaign?: CampaignProgress;
    preheader?: string;
    /** A sequence step: its enrolment's move, stored with this copy. */
    enrolment?: EnrolmentStep;
  };
}

/** What list mail's send answers: the records made, and the suppressed subscribers given none. */
export interface ListSendResult {
  ids: string[];
  skipped: string[];
}

/** The pipeline, as the ways in call it. */
export type Send = (ws: Workspace, req: SendRequest, opts: SendOptions) => Promise<SendResult & { list?: ListSendResult }>;
