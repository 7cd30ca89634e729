// The fields of lists and subscribers: how REST and --json show them (spec.md "List",
// "Subscriber"), and how a request's fields are read and bounded.
import { SvcError } from '../errors.js';
import type { Random } from '../clock.js';
import { SUBSCRIBER_STATUSES, type ListWithCount, type Subscriber, type SubscriberStatus, type SubscriberUpdate } from '../model/list.js';
import type { Workspace } from '../model/workspace.js';
import { parseMailbox } from '../mail/address.js';
import { CONTROL, invalidBody, objectBody, text, wholeNumber } from '../request.js';

const MAX_TAGS = 100;
const MAX_TAG = 100;

/** spec.md "List": the record as REST and --json show it. */
export const listView = (l: ListWithCount) => ({
  id: l.id,
  name: l.name,
  description: l.description,
  from_name: l.from_name,
  from_address: l.from_address,
  reply_to: l.reply_to,
  double_opt_in: l.double_opt_in,
  subscriber_count: l.subscriber_count,
  created_at: l.created_at,
  updated_at: l.updated_at,
});

/** spec.md "Subscriber". */
export const subscriberView = (s: Subscriber) => ({
  id: s.id,
  list_id: s.list_id,
  email: s.email,
  name: s.name,
  status: s.status,
  unsubscribe_token: s.unsubscribe_token,
  tags: s.tags,
  created_at: s.created_at,
  updated_at: s.updated_at,
});

/** An email as a subscriber's: trimmed, one valid mailbox, lower-cased; `invalid email: …` otherwise. */
export function subscriberEmail(input: unknown): string {
  if (typeof input !== 'string') throw new SvcError('invalid_request', 'invalid email: email is required');
  const m = parseMailbox(input.trim());
  if ('error' in m) throw new SvcError('invalid_request', `invalid email: ${m.error}`);
  return m.address.toLowerCase();
}

export function tagsOf(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw invalidBody('tags must be an array of strings');
  const tags = [...new Set((v as string[]).map((t) => t.trim()).filter(Boolean))];
  if (tags.length > MAX_TAGS || tags.some((t) => t.length > MAX_TAG || CONTROL.test(t))) {
    throw new SvcError('invalid_request', `tags: at most ${MAX_TAGS}, each one line of at most ${MAX_TAG} characters`);
  }
  return tags;
}

/**
 * What a subscribe (REST, CLI or a CSV row) writes: the subscriber if the email is new to the list
 * (a fresh id and unguessable token: 256 random bits), and the update if it is there already (the
 * name; the tags only when given; never the status).
 */
export function subscribeRow(
  random: Random,
  ws: Workspace,
  listId: string,
  row: { email: string; name: string; tags?: string[] | undefined },
  status: SubscriberStatus,
  at: string,
): { s: Subscriber; update: SubscriberUpdate } {
  return {
    s: {
      id: random.uuid(),
      list_id: listId,
      workspace_id: ws.id,
      email: row.email,
      name: row.name,
      status,
      unsubscribe_token: random.bytes(32).toString('base64url'),
      tags: row.tags ?? [],
      created_at: at,
      updated_at: at,
    },
    update: { name: row.name, ...(row.tags ? { tags: row.tags } : {}), updated_at: at },
  };
}

/**
 * A list's fields in a request (create or change), checked for shape: each a short line, or a
 * boolean. Whether the sender may send is the service's to check, with the store.
 */
export function listInput(body: unknown, create: boolean) {
  const b = objectBody(body);
  const name = text(b, 'name')?.trim();
  if (create ? !name : name === '') throw new SvcError('invalid_request', 'name is required');
  const fields: { name?: string; description?: string; from_name?: string; reply_to?: string; from_address?: string } = {};
  if (name !== undefined) fields.name = name;
  for (const f of ['description', 'from_name', 'reply_to', 'from_address'] as const) {
    const v = text(b, f);
    if (v !== undefined) fields[f] = v;
  }
  const optIn = b.double_opt_in;
  if (optIn !== undefined && optIn !== null && typeof optIn !== 'boolean') throw invalidBody('double_opt_in must be a boolean');
  return { ...fields, ...(typeof optIn === 'boolean' ? { double_opt_in: optIn } : {}) };
}

/** A subscriber in a request: its email (required, valid), name and tags. */
export function subscriberInput(body: unknown) {
  const b = objectBody(body);
  const email = subscriberEmail(b.email);
  return { email, name: text(b, 'name')?.trim() ?? '', tags: tagsOf(b.tags) };
}

/** Subscriber pages: the spec's default, and a maximum of ours (larger pages are cut to it). */
export const SUBSCRIBER_PAGE = 100;
export const SUBSCRIBER_PAGE_MAX = 1000;

/** A query of a list's subscribers: a status, and a page. */
export function subscriberQuery(q: {
  status?: string | undefined;
  limit?: string | number | undefined;
  offset?: string | number | undefined;
}) {
  if (q.status !== undefined && !SUBSCRIBER_STATUSES.includes(q.status as SubscriberStatus)) {
    throw new SvcError('invalid_request', `invalid query: status must be ${SUBSCRIBER_STATUSES.join(', ')}`);
  }
  return {
    status: q.status as SubscriberStatus | undefined,
    limit: Math.min(wholeNumber('limit', q.limit, SUBSCRIBER_PAGE, 1), SUBSCRIBER_PAGE_MAX),
    offset: wholeNumber('offset', q.offset, 0, 0),
  };
}

/** An import's body: `{csv}` with some text in it. */
export function csvOfBody(body: unknown): string {
  const csv = (body as { csv?: unknown } | null)?.csv;
  if (typeof csv !== 'string' || csv.trim() === '') throw new SvcError('invalid_request', 'csv body required');
  return csv;
}
