// The team inbox: what the MX received (stored with its effects on the message log in one call)
// and the Sent copies, which are the sends' own contents (port/messages.ts), read as items.
import type { InboundDelivery, InboxItem, InboxQuery, InboxSummary, InboxThread, ThreadQuery, ThreadState } from '../../model/inbox.js';

export interface InboxStore {
  /**
   * Stores a received message's items and applies what it changes (bounces, suppressions, reply
   * events, webhook events): all or nothing, durable on return. A bounce update applies only to a
   * record that is not bounced yet; a record gone meanwhile is skipped with its events.
   */
  receive(d: InboundDelivery): Promise<void>;
  /** Newest first; Sent copies are `sent` items with the send's content id as their id. */
  list(workspaceId: string, q: InboxQuery): Promise<{ data: InboxSummary[]; total: number }>;
  /** One item of either folder, with its bodies (null for another workspace's). */
  get(workspaceId: string, id: string): Promise<InboxItem | null>;
  /**
   * Up to `limit` ids of the workspace's items (both folders) that start with `prefix`, or with
   * `threads` ids of its threads: what a short id on the command line may stand for.
   */
  idsWithPrefix(workspaceId: string, prefix: string, limit: number, threads: boolean): Promise<string[]>;
  /** Threads, newest activity first, of a view and matching a search (ThreadQuery). */
  threads(workspaceId: string, q: ThreadQuery): Promise<{ data: InboxThread[]; total: number }>;
  /**
   * Sets what the team marked on a thread (a field left out is kept; null clears it). False when
   * the workspace has no such thread.
   */
  markThread(workspaceId: string, threadId: string, patch: Partial<ThreadState>): Promise<boolean>;
  /** What the team marked on a thread (both null when nothing was). */
  threadState(workspaceId: string, threadId: string): Promise<ThreadState>;
  /** The thread of the first item (received or sent) whose Message-ID is one of these, or null. */
  threadOf(workspaceId: string, messageIds: string[]): Promise<string | null>;
  /** Received items about this message record (bounces, complaints, replies), oldest first. */
  about(workspaceId: string, messageRef: string): Promise<InboxSummary[]>;
  /** Bytes of the workspace's received items (its storage use). */
  usage(workspaceId: string): Promise<number>;
  /** Removes received items created before `before`; returns how many. */
  purge(before: string): Promise<number>;
  /**
   * Gives back the disk space deleted received items still take; returns the bytes freed. The file
   * store rewrites a journal segment once deleted items hold half of it (and at least 64 KB);
   * Postgres has autovacuum reuse the space of deleted rows and returns 0.
   */
  compact(): Promise<number>;
  /** Deletes one received item of the workspace (its bytes no longer count); false when there is none (Sent copies are not items to delete). */
  remove(workspaceId: string, id: string): Promise<boolean>;
}
