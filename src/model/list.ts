// Newsletter lists and their subscribers (spec.md "List", "Subscriber", "Subscriber status").

/** A newsletter list. `subscriber_count` is the store's count of its subscribers (every status). */
export interface List {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  from_name: string;
  /** Default sender of broadcasts and sequences: an active address on a verified domain, or empty. */
  from_address: string;
  /** Stored only; empty string when unset. */
  reply_to: string;
  /** New subscribers posted to it are `pending` until they confirm (an added field). */
  double_opt_in: boolean;
  created_at: string;
  updated_at: string;
}

export type ListWithCount = List & { subscriber_count: number };

/** What PATCH may change: only the fields sent. */
export type ListPatch = Partial<Pick<List, 'name' | 'description' | 'from_name' | 'from_address' | 'reply_to' | 'double_opt_in'>>;

/** Where a subscriber's unsubscribe URL lives under the base URL, followed by its token. */
export const UNSUBSCRIBE_PATH = '/u/';
/** A subscriber's unsubscribe URL (CONTRACT.md): the same for the link in the body and for List-Unsubscribe. */
export const unsubscribeUrl = (baseUrl: string, token: string): string => `${baseUrl}${UNSUBSCRIBE_PATH}${token}`;

/**
 * A list's `List-Id` (RFC 2919): its id under the sending domain, which stays the same for every
 * copy of the list whatever its name becomes (filters key on it).
 */
export const listId = (listIdValue: string, from: string): string =>
  `<${listIdValue}.list.${from.slice(from.lastIndexOf('@') + 1).toLowerCase()}>`;

/** What a copy of list mail carries of its subscriber (model/message.ts CopySubscriber). */
export const copySubscriber = (s: Pick<Subscriber, 'id' | 'list_id' | 'name' | 'unsubscribe_token'>) => ({
  id: s.id,
  list_id: s.list_id,
  name: s.name,
  unsubscribe_token: s.unsubscribe_token,
});

/** The subject of the mailto: unsubscribe of List-Unsubscribe (the MX acts on mail at a list copy's return path with it). */
export const UNSUBSCRIBE_SUBJECT = 'unsubscribe';

export const SUBSCRIBER_STATUSES = ['pending', 'active', 'unsubscribed'] as const;
export type SubscriberStatus = (typeof SUBSCRIBER_STATUSES)[number];

export interface Subscriber {
  id: string;
  list_id: string;
  workspace_id: string;
  /** Lower-cased. */
  email: string;
  name: string;
  status: SubscriberStatus;
  /** Unguessable (256 random bits, base64url): the key of the subscriber's unsubscribe URL. */
  unsubscribe_token: string;
  tags: string[];
  created_at: string;
  updated_at: string;
  /** When a double opt-in confirmation email last went to it (none again within an hour); not shown. */
  confirm_sent_at?: string | null;
}

/** What an upsert by email changes on a subscriber already on the list (its status is kept). */
export interface SubscriberUpdate {
  name: string;
  /** Replaced when given. */
  tags?: string[];
  updated_at: string;
}
