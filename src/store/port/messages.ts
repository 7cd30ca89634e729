// Messages: a send's records, content, jobs and events, accepted together; the outbound queue
// that hands them off; the outbox of events not yet dispatched; the send counts of the quota.
import type { OutboxEvent } from '../../model/event.js';
import type { StoredResponse } from '../../model/idempotency.js';
import type { Message, MessagePatch, MessageQuery, OutboundJob, SendContent } from '../../model/message.js';
import type { QuotaWindow } from '../../model/quota.js';
import type { AcceptRefusal } from '../../model/refusal.js';
import type { Suppression } from '../../model/suppression.js';
import type { DeliveryAttempt } from '../../model/attempt.js';
import type { CampaignProgress } from '../../model/campaign.js';
import type { EnrolmentStep } from '../../model/sequence.js';

export interface AcceptBatch {
  content: SendContent;
  messages: Message[];
  jobs: OutboundJob[];
  events: OutboxEvent[];
  /** Counted in these windows, or refused (send_quota) when one would go over. */
  debit?: { n: number; windows: QuotaWindow[] };
  /** Completes this claim, with the response a replay returns (and the request's fingerprint). */
  idempotency?: { key: string; token: string; response: StoredResponse; fingerprint?: string | null };
  /**
   * Lowercase addresses that must not be on the workspace's suppression list: when one is, nothing
   * is stored and the answer is a `suppressed` refusal naming them (checked in the same call, so a
   * send needs no separate look-up in the usual case).
   */
  unsuppressed?: string[];
  /** A broadcast's fan-out batch: the campaign's progress, stored with these copies or not at all. */
  campaign?: CampaignProgress;
  /** A sequence step's send: its enrolment's move, stored with this record or not at all. */
  enrolment?: EnrolmentStep;
}

/** The outcome of one attempt at a job, stored in one call. */
export interface JobOutcome {
  updates: MessagePatch[];
  events: OutboxEvent[];
  suppressions: Suppression[];
  /** Recipients to try again, and when; absent when the job is finished. */
  retry?: {
    message_ids: string[];
    next_attempt_at: string;
    last_error: string;
    /** The job's attempts from now on; absent: one more (an operator's retry or cancel is no attempt). */
    attempts?: number;
    /** Held from now on: no claim takes it (a restored backup's queue); absent or false lets it go. */
    held?: boolean;
  };
  /** What each recipient's attempt met (kept, the newest ATTEMPTS_KEPT per record). */
  transcript?: DeliveryAttempt[];
}

export interface MessageStore {
  /**
   * The records of a send, its content, its jobs and events: all or nothing, durable on return.
   * null when stored; a refusal (nothing stored) when over a quota or naming a suppressed recipient.
   */
  accept(batch: AcceptBatch): Promise<AcceptRefusal | null>;
  get(workspaceId: string, id: string): Promise<Message | null>;
  /** Ids of the workspace's messages that start with `prefix` (at most `limit`): a short id on the command line. */
  idsWithPrefix(workspaceId: string, prefix: string, limit: number): Promise<string[]>;
  /** Newest first. */
  list(workspaceId: string, q: MessageQuery): Promise<{ data: Message[]; total: number }>;
  byIds(ids: string[]): Promise<Message[]>;
  /** The records of the send whose Message-ID header (without brackets) is this, in the order stored. */
  byHeaderId(workspaceId: string, messageId: string): Promise<Message[]>;
  content(id: string): Promise<SendContent | null>;
  /** Removes messages (and their contents and finished jobs) created before `before`; returns how many. */
  purge(before: string): Promise<number>;
  /** A record's hand-off attempts, oldest first (none for another workspace's record). */
  attempts(workspaceId: string, messageId: string): Promise<DeliveryAttempt[]>;
}

/** Which unfinished jobs `svc queue list` shows (every field narrows; none: all of them). */
export interface QueueQuery {
  workspaceId?: string;
  /** The recipient domain, exactly (ASCII, lower case). */
  domain?: string;
  /** Jobs with a recipient whose address contains this (case-insensitive). */
  recipient?: string;
  /** Jobs holding this message. */
  messageId?: string;
  /** Jobs queued before this time. */
  createdBefore?: string;
  /** Oldest first; at most this many. */
  limit: number;
}

/** An unfinished job as the operator sees it: whether a hand-off holds it right now. */
export type PendingJob = OutboundJob & { leased: boolean };

export interface QueueStore {
  /**
   * Up to `max` jobs due at `now`, leased to `owner` for leaseMs. A job never tried (attempts 0)
   * is due at once, whatever its next_attempt_at and the caller's clock. Fair: a lower `priority`
   * class comes first (transactional before bulk); within a class the workspaces take turns, each
   * workspace's jobs in the order they are due, so one workspace's 20,000 queued copies never keep
   * another's mail waiting behind them. Jobs for `skipDomains` (destinations paused after a
   * deferral) are left queued. At most `maxBulk` of the jobs are of a bulk class (the caller keeps
   * slots for transactional mail that arrives while bulk mail is handed off).
   * Leases are measured with the store's own clock where several processes share it (Postgres:
   * the database's now()), so daemons whose clocks disagree never take each other's live jobs.
   * A held job is never claimed.
   */
  claim(owner: string, now: string, leaseMs: number, max: number, skipDomains?: string[], maxBulk?: number): Promise<OutboundJob[]>;
  /** Extends the leases `owner` still holds on these jobs by leaseMs from now (a heartbeat). */
  renew(owner: string, jobIds: string[], now: string, leaseMs: number): Promise<void>;
  /** Records an attempt's outcome and finishes or reschedules the job, in one call. */
  complete(jobId: string, outcome: JobOutcome): Promise<void>;
  /** Jobs not finished (queued or in flight). */
  depth(): Promise<number>;
  /** Unfinished jobs, oldest first (`svc queue list`); `now` decides which leases still hold. */
  pending(q: QueueQuery, now: string): Promise<PendingJob[]>;
  /**
   * Leases these jobs to `owner` when no hand-off holds them (an operator's retry or cancel: no
   * worker takes them meanwhile); the jobs taken. Its `complete` ends the lease.
   */
  take(owner: string, jobIds: string[], now: string, leaseMs: number): Promise<OutboundJob[]>;
}

export interface OutboxStore {
  /** Events not yet dispatched to webhook endpoints, oldest first. */
  pending(limit: number): Promise<OutboxEvent[]>;
}

export interface UsageStore {
  /** Sends counted in each of these windows. */
  get(workspaceId: string, windowKeys: string[]): Promise<Record<string, number>>;
}
