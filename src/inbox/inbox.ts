// The team inbox as the API and the commands show it (additions to spec.md, documented in the
// docs/inbox.md): items of both folders, threads, one item with its bodies (HTML as received, a string
// nobody renders), and a reply from the inbox, which goes through the one pipeline and counts
// against the inbox sends per day.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import {
  INBOX_KINDS,
  THREAD_VIEWS,
  threadFlags,
  type InboxFolder,
  type InboxItem,
  type InboxKind,
  type InboxSummary,
  type ThreadState,
  type ThreadView,
} from '../model/inbox.js';
import type { Workspace } from '../model/workspace.js';
import type { Party, Send, SendResult } from '../model/send.js';
import { parseMailbox } from '../mail/address.js';
import { DEFAULT_PAGE, MAX_PAGE } from '../messages/log.js';
import { bodyText, objectBody, queryText, wholeNumber } from '../request.js';
import type { Parse } from './parse-thread.js';

/** What a Sent row that stands for a broadcast says of it: its list and how many copies it made. */
export interface SentCampaign {
  id: string;
  list_id: string;
  status: string;
  /** Active subscribers when it was sent, and copies made so far (the suppressed get none). */
  recipients: number;
  copies: number;
}

/**
 * CONTRACT.md `svc inbox list`: id, folder, thread_id, from, to, subject, kind, message_id,
 * created_at (and note, size; `campaign` on a Sent row that stands for a broadcast).
 */
export const inboxListItem = (s: InboxSummary, campaign?: SentCampaign | null) => ({
  id: s.id,
  folder: s.folder,
  thread_id: s.thread_id,
  from: s.from,
  from_name: s.from_name ?? null,
  to: s.to,
  subject: s.subject,
  kind: s.kind,
  message_id: s.message_id,
  created_at: s.created_at,
  message_ref: s.message_ref,
  note: s.note,
  size: s.size,
  ...(campaign ? { campaign } : {}),
});

/** Whom a Sent row went to, in words: its recipients, or a broadcast's count of copies. */
export const sentTo = (i: { to: string[]; campaign?: SentCampaign }): string =>
  i.campaign
    ? `${i.campaign.copies.toLocaleString('en')} subscriber${i.campaign.copies === 1 ? '' : 's'} (broadcast${i.campaign.status === 'sending' || i.campaign.status === 'queued' ? ', sending' : ''})`
    : i.to.join(', ');

/** One item: the list fields, the bodies and headers; the raw message only when asked for. */
export const inboxItemView = (i: InboxItem, raw = false) => ({
  ...inboxListItem(i),
  cc: i.cc,
  in_reply_to: i.in_reply_to,
  references: i.references,
  headers: i.headers,
  text: i.text,
  html: i.html,
  envelope: i.envelope,
  /** What vouched for a received message (SPF, DKIM, DMARC, the verdict); null for Sent copies and older items. */
  auth: i.auth ?? null,
  ...(raw ? { raw: i.raw } : {}),
});

const NO_CRLF = /[\r\n]+/g;
/** A search is words typed in a box, not a document. */
export const SEARCH_MAX = 200;

export interface InboxListQuery {
  folder?: string | undefined;
  thread?: string | undefined;
  kind?: string | undefined;
  limit?: string | number | undefined;
  offset?: string | number | undefined;
}

const folderOf = (v: string | undefined): InboxFolder => {
  if (v === undefined || v === '' || v === 'inbox') return 'inbox';
  if (v === 'sent') return 'sent';
  throw new SvcError('invalid_argument', `folder must be inbox or sent, not '${v}'`);
};
const kindOf = (v: string | undefined): InboxKind | undefined => {
  if (v === undefined || v === '') return undefined;
  if ((INBOX_KINDS as readonly string[]).includes(v)) return v as InboxKind;
  throw new SvcError('invalid_argument', `kind must be one of ${INBOX_KINDS.join(', ')}, not '${v.replace(NO_CRLF, ' ').slice(0, 40)}'`);
};
const page = (q: { limit?: string | number | undefined; offset?: string | number | undefined }) => ({
  limit: Math.min(wholeNumber('limit', q.limit, DEFAULT_PAGE, 1), MAX_PAGE),
  offset: wholeNumber('offset', q.offset, 0, 0),
});

/** A query of one folder's items: the folder (inbox by default), a thread, a kind, a page. */
export function itemQuery(q: InboxListQuery) {
  const kind = kindOf(queryText('kind', q.kind));
  const thread = queryText('thread', q.thread);
  return {
    folder: folderOf(queryText('folder', q.folder)),
    ...(thread ? { thread_id: thread } : {}),
    ...(kind ? { kind } : {}),
    ...page(q),
  };
}

export interface ThreadQuery {
  limit?: string | number | undefined;
  offset?: string | number | undefined;
  view?: string | undefined;
  search?: string | undefined;
}

/** A query of threads: a view (all by default), a search text, a page. */
export function threadQuery(q: ThreadQuery) {
  const view = queryText('view', q.view) || 'all';
  if (!(THREAD_VIEWS as readonly string[]).includes(view))
    throw new SvcError(
      'invalid_argument',
      `view must be one of ${THREAD_VIEWS.join(', ')}, not '${view.replace(NO_CRLF, ' ').slice(0, 40)}'`,
    );
  const search = (queryText('search', q.search) ?? '').trim();
  if (search.length > SEARCH_MAX) throw new SvcError('invalid_argument', `search must be at most ${SEARCH_MAX} characters`);
  return { ...page(q), view: view as ThreadView, ...(search ? { search } : {}) };
}

/** Whether one item's query asks for the message as received: raw 1 or true (0, false or empty: not). */
export function itemOptions(q: { raw?: unknown }): { raw: boolean } {
  const v = q.raw ?? '';
  if (v === '1' || v === 'true') return { raw: true };
  if (v === '' || v === '0' || v === 'false') return { raw: false };
  throw new SvcError('invalid_argument', 'invalid query: raw must be 1, true, 0 or false');
}

/** What a mark asks: read and archived, each true or false, at least one of them. */
export function threadMarks(body: unknown): { read?: boolean; archived?: boolean } {
  const b = objectBody(body ?? {});
  const marks: { read?: boolean; archived?: boolean } = {};
  for (const field of ['read', 'archived'] as const) {
    const v = b[field];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw new SvcError('invalid_request', `${field} must be true or false`);
    marks[field] = v;
  }
  if (!Object.keys(marks).length) throw new SvcError('invalid_request', 'give read or archived (true or false)');
  return marks;
}

/** A reply's request: text or html (at least one), and a from and to that may be left to the item. */
export function replyInput(body: unknown) {
  const b = objectBody(body ?? {});
  const field = (f: string): string | null => bodyText(b, f) || null;
  const text = field('text');
  const html = field('html');
  const from = field('from');
  const to = field('to');
  if (!text && !html) throw new SvcError('invalid_request', 'a reply needs text or html');
  return { text, html, from, to };
}

export function inboxService(deps: DepsOf<'inbox' | 'campaigns'>, send: Send) {
  const { store } = deps;
  /**
   * Bodies are parsed in a thread of their own with a small heap and a time budget (parse-thread.ts),
   * as the MX's reports are: a message built to cost never stalls the listeners, nor takes the heap.
   * Started on the first read.
   */
  let parser: Promise<{ parse: Parse; close(): Promise<void> }> | null = null;
  /** The campaigns that Sent rows stand for, by id. */
  const campaignsOf = async (ws: Workspace, rows: InboxSummary[]): Promise<Map<string, SentCampaign>> => {
    const ids = [...new Set(rows.flatMap((r) => (r.campaign_id ? [r.campaign_id] : [])))];
    const found = await Promise.all(ids.map((id) => store.campaigns.get(ws.id, id)));
    return new Map(
      found.flatMap((c) =>
        c ? [[c.id, { id: c.id, list_id: c.list_id, status: c.status, recipients: c.recipients, copies: c.copies }] as const] : [],
      ),
    );
  };
  const item = async (ws: Workspace, id: string): Promise<InboxItem> => {
    const i = await store.inbox.get(ws.id, id);
    if (!i) throw new SvcError('not_found', 'inbox item not found');
    return i;
  };
  /**
   * A received item's text and HTML, read from its raw message now (the MX reads only headers on the
   * way in); so is a Sent copy of relayed mail's (the relay keeps the message as it came).
   */
  const withBodies = async (i: InboxItem): Promise<InboxItem> => {
    if (!i.raw || i.text !== null || i.html !== null) return i;
    const raw = Buffer.from(i.raw, 'base64');
    // The parser (postal-mime, in its thread) is loaded when a body is read, not by every command that makes the service.
    const { readablePart, readHead } = await import('./parse.js');
    parser ??= import('./parse-thread.js').then((m) => m.threadParser());
    const { part, whole } = readablePart(raw);
    const { email, problem } = await (await parser).parse(part, readHead(raw));
    const shown =
      !whole && email
        ? `only its first ${Math.ceil(part.length / 1024)} KB is shown (a long message); the whole of it is kept (raw)`
        : null;
    return { ...i, text: email?.text ?? null, html: email?.html ?? null, note: i.note ?? problem ?? shown };
  };

  return {
    /** Ends the parser's thread (a stopping daemon). */
    async close(): Promise<void> {
      const p = parser;
      parser = null;
      if (p) await (await p).close();
    },
    async list(ws: Workspace, q: InboxListQuery) {
      const r = await store.inbox.list(ws.id, itemQuery(q));
      const campaigns = await campaignsOf(ws, r.data);
      return { data: r.data.map((s) => inboxListItem(s, s.campaign_id ? campaigns.get(s.campaign_id) : null)), total: r.total };
    },
    /** Threads newest activity first: `view` all (default), inbox or archived; `search` text in a sender, recipient or subject. */
    async threads(ws: Workspace, q: ThreadQuery) {
      return store.inbox.threads(ws.id, threadQuery(q));
    },
    /**
     * Marks a thread read or unread, archived or back in the inbox, for the whole team (the inbox is
     * shared). Reading or archiving holds until new mail comes into the thread.
     */
    async mark(ws: Workspace, threadId: string, body: unknown) {
      const marks = threadMarks(body);
      const at = deps.clock.now().toISOString();
      const patch: Partial<ThreadState> = {};
      if (marks.read !== undefined) patch.read_at = marks.read ? at : null;
      if (marks.archived !== undefined) patch.archived_at = marks.archived ? at : null;
      if (!(await store.inbox.markThread(ws.id, threadId, patch))) throw new SvcError('not_found', 'thread not found');
      return { thread_id: threadId, ...patch };
    },
    /** A thread's items of both folders, oldest first. */
    async thread(ws: Workspace, threadId: string) {
      const [inbox, sent] = await Promise.all(
        (['inbox', 'sent'] as const).map((folder) => store.inbox.list(ws.id, { folder, thread_id: threadId, limit: MAX_PAGE, offset: 0 })),
      );
      const items = [...inbox!.data, ...sent!.data].sort((a, b) =>
        a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0,
      );
      if (!items.length) throw new SvcError('not_found', 'thread not found');
      const received = items.filter((i) => i.folder === 'inbox').at(-1)?.created_at ?? null;
      return {
        thread_id: threadId,
        ...threadFlags(received, await store.inbox.threadState(ws.id, threadId)),
        items: items.map((s) => inboxListItem(s)),
      };
    },
    async get(ws: Workspace, id: string, opts: { raw?: boolean } = {}) {
      return inboxItemView(await withBodies(await item(ws, id)), opts.raw ?? false);
    },
    /**
     * Answers an item from the inbox: to its sender (or `to`), from the address it was sent to
     * (or `from`, a registered address), `Re: ` its subject, threaded with it.
     */
    async reply(ws: Workspace, id: string, body: unknown, key?: { id: string; prefix: string } | null): Promise<SendResult> {
      const { text, html, ...given } = replyInput(body);
      const original = await item(ws, id);
      const address = (v: string | null, what: string, dflt: string): Party => {
        const m = parseMailbox(v ?? dflt);
        if ('error' in m) throw new SvcError('invalid_request', `invalid ${what}: ${m.error}`);
        return { name: null, address: m.address };
      };
      const from = address(given.from, 'from', original.folder === 'sent' ? original.from : (original.to[0] ?? ''));
      const to = address(given.to, 'to', original.folder === 'sent' ? (original.to[0] ?? '') : original.from);
      const subject = /^re:/i.test(original.subject) ? original.subject : `Re: ${original.subject}`.replace(NO_CRLF, ' ').slice(0, 998);
      return send(
        ws,
        { from, to: [to], cc: [], bcc: [], subject, html, text },
        {
          source: 'api',
          key: key ?? null,
          inbox: {
            thread_id: original.thread_id,
            in_reply_to: original.message_id,
            references: [...original.references.slice(-10), ...(original.message_id ? [original.message_id] : [])],
          },
        },
      );
    },
    /**
     * Deletes a received item: it leaves the lists and threads and its bytes stop counting against
     * the workspace's storage at once. A Sent copy is the message log's and leaves with it.
     */
    async remove(ws: Workspace, id: string): Promise<{ id: string; deleted: true }> {
      const i = await item(ws, id);
      if (i.folder === 'sent')
        throw new SvcError(
          'invalid_request',
          'a Sent copy is part of the message log and leaves with it (--retention-days); it cannot be deleted from the inbox',
        );
      if (!(await store.inbox.remove(ws.id, id))) throw new SvcError('not_found', 'inbox item not found');
      return { id, deleted: true };
    },
    /** How many bytes of received mail the workspace keeps (its storage use). */
    usage: (ws: Workspace) => store.inbox.usage(ws.id),
  };
}

export type InboxService = ReturnType<typeof inboxService>;
