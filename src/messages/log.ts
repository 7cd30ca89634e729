// src/messages/: the message log as the API and commands show it.
//
// The message log (spec.md "GET /api/v2/messages", "Message", "Message event").
import { SvcError } from '../errors.js';
import { queryText, wholeNumber } from '../request.js';
import type { DepsOf } from '../deps.js';
import type { Message, MessageStatus } from '../model/message.js';
import type { Workspace } from '../model/workspace.js';

export const MESSAGE_STATUSES: readonly MessageStatus[] = ['queued', 'sent', 'bounced'];
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

/** Every field of spec.md "Message". */
export function messageView(m: Message) {
  return {
    id: m.id,
    tenant_id: m.workspace_id,
    from: m.from,
    to: m.to,
    subject: m.subject,
    status: m.status,
    open_count: m.open_count,
    click_count: m.click_count,
    reply_count: m.reply_count,
    engagement_score: m.open_count + 5 * m.click_count + 10 * m.reply_count,
    first_open_after_seconds: m.first_open_after_seconds,
    message_id: m.message_id,
    error: m.error,
    notes: m.notes,
    created_at: m.created_at,
    sent_at: m.sent_at,
    opened_at: m.opened_at,
    clicked_at: m.clicked_at,
    replied_at: m.replied_at,
    bounced_at: m.bounced_at,
    // Beyond spec.md's fields (additive): deferred mail is visible.
    attempts: m.attempts ?? 0,
    last_error: m.last_error ?? null,
    next_attempt_at: m.next_attempt_at ?? null,
  };
}

const LIST_FIELDS = [
  'id',
  'tenant_id',
  'message_id',
  'from',
  'to',
  'subject',
  'status',
  'open_count',
  'click_count',
  'created_at',
  'sent_at',
  'opened_at',
] as const;

/** The list-item subset of spec.md, taken from the full view so the two never disagree. */
export function messageListItem(m: Message) {
  const v = messageView(m);
  return Object.fromEntries(LIST_FIELDS.map((f) => [f, v[f]])) as Pick<ReturnType<typeof messageView>, (typeof LIST_FIELDS)[number]>;
}

export interface ListQuery {
  status?: string | undefined;
  recipient?: string | undefined;
  /** The Message-ID header (angle brackets optional). */
  messageId?: string | undefined;
  from?: string | undefined;
  /** ISO times: created at or after `since`, before `until`. */
  since?: string | undefined;
  until?: string | undefined;
  limit?: string | number | undefined;
  offset?: string | number | undefined;
}

/** A message-log query as the store takes it; the query's texts for what it refuses (REST explains with it too). */
export function messageQuery(q: ListQuery) {
  if (q.status !== undefined && !MESSAGE_STATUSES.includes(q.status as MessageStatus)) {
    throw new SvcError('invalid_request', `invalid query: status must be ${MESSAGE_STATUSES.join(', ')}`);
  }
  const messageId = queryText('messageId', q.messageId)?.trim().replace(/^<|>$/g, '') || undefined;
  const from = queryText('from', q.from)?.trim() || undefined;
  const since = queryText('since', q.since);
  const until = queryText('until', q.until);
  return {
    status: q.status as MessageStatus | undefined,
    recipient: queryText('recipient', q.recipient)?.trim() || undefined,
    // Larger pages are cut to the maximum rather than refused (spec: maximum 500).
    limit: Math.min(wholeNumber('limit', q.limit, DEFAULT_PAGE, 1), MAX_PAGE),
    offset: wholeNumber('offset', q.offset, 0, 0),
    ...(messageId ? { messageId } : {}),
    ...(from ? { from } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}

export function messageLog({ store }: DepsOf<'messages'>) {
  return {
    async list(ws: Workspace, q: ListQuery) {
      const r = await store.messages.list(ws.id, messageQuery(q));
      return { data: r.data.map(messageListItem), total: r.total };
    },

    async get(ws: Workspace, id: string) {
      const m = await store.messages.get(ws.id, id);
      if (!m) throw new SvcError('not_found', 'message not found');
      return messageView(m);
    },

    purgeOlderThan(days: number, now: Date) {
      return store.messages.purge(new Date(now.getTime() - days * 86_400_000).toISOString());
    },
  };
}

export type MessageLog = ReturnType<typeof messageLog>;
