// Message events: opens and clicks (and, with the inbound MX, replies), recorded in batches with
// what they change on their records and the webhook events they raise, in one call.
import type { OutboxEvent } from '../../model/event.js';
import type { Message } from '../../model/message.js';
import type { MessageEvent } from '../../model/tracking.js';

/** What labelling a hit and its webhook event need of a copy: fixed once it is sent. */
export type TrackedCopy = Pick<Message, 'id' | 'workspace_id' | 'token' | 'from' | 'to' | 'subject' | 'sent_at'>;

export interface TrackingStore {
  /** The copies these tokens belong to (unknown tokens are left out). */
  byTokens(tokens: string[]): Promise<TrackedCopy[]>;
  /**
   * Stores the events, applies each to its record (applyEvent in src/model/tracking.ts), and
   * writes the outbox events, all in one call, durable on return. An event whose record is gone
   * (purged meanwhile) is dropped with its outbox event.
   */
  record(events: MessageEvent[], outbox: OutboxEvent[]): Promise<void>;
  /** A record's events, oldest first (none for another workspace's record). */
  events(workspaceId: string, messageId: string): Promise<MessageEvent[]>;
}
