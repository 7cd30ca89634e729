// The store's ports: newsletter lists and their subscribers. Lists are few and small; subscribers
// are high-volume records (a list may hold millions): a write touches one subscriber, never the
// others, and a list's deletion does not wait for its subscribers to be gone.
import type { List, ListPatch, ListWithCount, Subscriber, SubscriberStatus, SubscriberUpdate } from '../../model/list.js';
import type { CountLimit } from '../../model/quota.js';
import type { CountLimitRefusal } from '../../model/refusal.js';

export interface ListStore {
  create(l: List): Promise<ListWithCount>;
  /** Oldest first. */
  listByWorkspace(workspaceId: string): Promise<ListWithCount[]>;
  get(workspaceId: string, id: string): Promise<ListWithCount | null>;
  /** Changes only the fields in `patch`; null when there is no such list. */
  update(workspaceId: string, id: string, patch: ListPatch, at: string): Promise<ListWithCount | null>;
  /** Removes the list and its subscribers (at once for every read; their bytes may go later); false when there is none. */
  remove(workspaceId: string, id: string): Promise<boolean>;
  /** Removes what removed lists left behind, in batches; returns how many subscribers went. */
  sweep(): Promise<number>;
}

export interface SubscriberPage {
  data: Subscriber[];
  total: number;
}

export interface SubscriberStore {
  /**
   * Adds `s` to its list, or, when the list has its email already, applies `update` to that one
   * (its status kept). A new address the workspace has on none of its lists is refused past
   * `limit` distinct addresses (the plan's newsletter contacts). Throws not_found when the list is gone.
   */
  upsert(
    s: Subscriber,
    update: SubscriberUpdate,
    limit: CountLimit,
  ): Promise<{ subscriber: Subscriber; created: boolean } | CountLimitRefusal>;
  /**
   * upsert for many subscribers of one list in one write (an import): each new one added, each
   * already on the list updated (name; tags when given). Their emails are distinct. Refused whole
   * when the new addresses would take the workspace past `limit` contacts.
   */
  upsertMany(
    workspaceId: string,
    listId: string,
    rows: Array<{ s: Subscriber; update: SubscriberUpdate }>,
    limit: CountLimit,
  ): Promise<{ created: number; updated: number } | CountLimitRefusal>;
  /** How many of these addresses (distinct, lower-cased) the workspace has on none of its lists. */
  newContacts(workspaceId: string, emails: string[]): Promise<number>;
  /** Oldest first, optionally of one status. */
  list(
    workspaceId: string,
    listId: string,
    q: { status?: SubscriberStatus | undefined; limit: number; offset: number },
  ): Promise<SubscriberPage>;
  get(workspaceId: string, listId: string, id: string): Promise<Subscriber | null>;
  /** Of these subscribers, the ids still active on their lists (none of a removed list's). */
  active(workspaceId: string, refs: ReadonlyArray<{ list_id: string; id: string }>): Promise<Set<string>>;
  /** Up to `limit` ids of the list's subscribers that start with `prefix` (a short id on the command line). */
  idsWithPrefix(workspaceId: string, listId: string, prefix: string, limit: number): Promise<string[]>;
  /**
   * Up to `limit` active subscribers of the list after position `cursor` in its own order (0: from
   * the first), the position of the last one read, and whether that was the list's end. A
   * broadcast's fan-out reads a list with it; subscribers added meanwhile come after the others.
   */
  activeAfter(
    workspaceId: string,
    listId: string,
    cursor: number,
    limit: number,
  ): Promise<{ data: Subscriber[]; cursor: number; done: boolean }>;
  /** The position (as activeAfter counts) of the list's newest subscriber: those added later come after it. */
  lastPosition(workspaceId: string, listId: string): Promise<number>;
  /** The subscriber of an unsubscribe token, in any workspace (the unsubscribe URL names no workspace), with its list's name (its pages show it). */
  byToken(token: string): Promise<{ subscriber: Subscriber; list: string } | null>;
  setStatus(workspaceId: string, listId: string, id: string, status: SubscriberStatus, at: string): Promise<Subscriber | null>;
  remove(workspaceId: string, listId: string, id: string): Promise<boolean>;
  /** Notes that a confirmation email went to the subscriber at `at`; null when there is no such subscriber. */
  confirmSent(workspaceId: string, listId: string, id: string, at: string): Promise<Subscriber | null>;
  /** Distinct addresses on the workspace's lists (the contacts quota counts them). */
  contacts(workspaceId: string): Promise<number>;
}
