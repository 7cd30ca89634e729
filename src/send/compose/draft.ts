// Composition: a send's content becomes the copy one hand-off delivers, through a short chain of
// named steps applied in a fixed order (index.ts), then MIME (mime.ts); DKIM signs the result last,
// so its h= covers every header a step added. A step that puts something of one recipient in the
// copy (the open pixel, later tracked links, unsubscribe links and headers, merge variables) makes
// the copy per recipient: each recipient record then gets a copy of its own.
//
// This file: what the steps work on.
import type { CopySubscriber, SendContent } from '../../model/message.js';
import type { TextCache } from './text.js';

/** Who a copy is for. `token` is the recipient record's own (Message.token), or null for a copy shared by several. */
export interface CopyFor {
  recipients: string[];
  token: string | null;
  /**
   * List mail (broadcasts, sequence steps): the one recipient's subscriber (merge variables,
   * unsubscribe link and headers), its record's id (the mailto: unsubscribe goes to its return
   * path) and the copy's own Message-ID.
   */
  list?: { subscriber: CopySubscriber; record_id: string; message_id: string };
}

export interface ComposeContext {
  content: SendContent;
  copy: CopyFor;
  /** Public base URL of the tracking endpoints (--base-url). */
  baseUrl: string;
  /** The key that signs tracked links (store.secrets), when the sender has one. */
  linkKey?: string;
  /** Texts already made from this thread's contents' HTML (text.ts), when it keeps them. */
  texts?: TextCache;
}

/** The message as the steps build it, before MIME. */
export interface Draft {
  /** A full HTML document, or null for a text-only send. */
  html: string | null;
  text: string | null;
  /** Extra header fields, in order; every one is ours (never from the request) and signed. */
  headers: Array<[name: string, value: string]>;
}

export interface Step {
  name: string;
  /** Whether applying it to a copy depends on the recipient (then a copy is composed per recipient). */
  perRecipient(content: SendContent): boolean;
  apply(draft: Draft, ctx: ComposeContext): void;
}
