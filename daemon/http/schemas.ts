// JSON schemas of the REST API's answers (TypeBox), for fastify's serialiser and the OpenAPI
// document (openapi.ts). They name every field spec.md names; objects stay open
// (additionalProperties), so a field added later reaches clients rather than being dropped by the
// serialiser, and clients are told to expect additions. Requests are still checked by the services
// (src/send/validate.ts, src/messages/log.ts), which hold the spec's error texts.
import { Type, type Static, type TSchema } from 'typebox';
import { SOURCES } from '../../src/model/tracking.js';

const open = { additionalProperties: true };
/**
 * A scalar or null, as `type: [T, "null"]` rather than `anyOf`: fast-json-stringify serialises the
 * former directly, and runs a validator per value to pick a branch of the latter (the message page
 * serialised at 0.83 of JSON.stringify's speed with anyOf).
 */
const Nullable = <T extends TSchema>(t: T) => {
  const { type } = t as unknown as { type?: string };
  return type === 'array' || type === undefined
    ? Type.Union([t, Type.Null()])
    : Type.Unsafe<Static<T> | null>({ ...t, type: [type, 'null'] });
};
/** One of a few strings: an `enum` of type string (not an `anyOf` of literals, for the same reason). */
const OneOf = <const T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const Time = Type.String({ format: 'date-time' });

/** Every error: `{"error": "..."}`, with more fields for some (the quota body). */
export const ErrorBody = Type.Object({ error: Type.String() }, { ...open, description: 'spec.md "Errors"' });

/** spec.md "Errors": the quota refusal (429 with code quota_exceeded). */
export const QuotaBody = Type.Object(
  {
    code: Type.Literal('quota_exceeded'),
    error: Type.String(),
    kind: Type.String(),
    limit: Type.Integer(),
    used: Type.Integer(),
    window: Type.Optional(OneOf(['day', 'month'] as const)),
    resets_at: Type.Optional(Time),
    upgrade_url: Type.String(),
  },
  { ...open, description: 'spec.md "Errors": the quota refusal' },
);

/** spec.md "Message" (GET /api/v2/messages/:id), and the additions svc makes to it. */
export const Message = Type.Object(
  {
    id: Type.String(),
    tenant_id: Type.String(),
    from: Type.String(),
    to: Type.String(),
    subject: Type.String(),
    status: OneOf(['queued', 'sent', 'bounced'] as const),
    open_count: Type.Integer(),
    click_count: Type.Integer(),
    reply_count: Type.Integer(),
    engagement_score: Type.Integer(),
    first_open_after_seconds: Nullable(Type.Integer()),
    message_id: Type.String(),
    error: Nullable(Type.String()),
    notes: Type.Array(Type.String(), { description: 'svc addition: why a recipient was treated as it was' }),
    created_at: Time,
    sent_at: Nullable(Time),
    opened_at: Nullable(Time),
    clicked_at: Nullable(Time),
    replied_at: Nullable(Time),
    bounced_at: Nullable(Time),
    attempts: Type.Integer({ description: 'svc addition: hand-off attempts so far' }),
    last_error: Nullable(Type.String({ description: 'svc addition: the last temporary failure' })),
    next_attempt_at: Nullable(Time),
  },
  { ...open },
);

/** spec.md: the list items carry a subset of the message. */
export const MessageListItem = Type.Object(
  {
    id: Type.String(),
    tenant_id: Type.String(),
    message_id: Type.String(),
    from: Type.String(),
    to: Type.String(),
    subject: Type.String(),
    status: Type.String(),
    open_count: Type.Integer(),
    click_count: Type.Integer(),
    created_at: Time,
    sent_at: Nullable(Time),
    opened_at: Nullable(Time),
  },
  { ...open },
);

/** spec.md "Message event" (src/tracking/tracking.ts eventView). */
export const MessageEvent = Type.Object(
  {
    kind: OneOf(['open', 'click', 'reply'] as const),
    prefetch: Type.Boolean(),
    url: Type.Optional(Type.String({ description: 'on click events' })),
    ip: Type.Optional(Type.String({ description: 'may be absent on reply events' })),
    user_agent: Type.String(),
    created_at: Time,
    source: OneOf(SOURCES, { description: 'svc addition: what most likely caused it (human, proxy, prefetch, scanner)' }),
  },
  open,
);

/** spec.md "Key info". */
export const KeyInfo = Type.Object({ tenant: Type.String(), permissions: Type.Array(Type.String()) }, { ...open });

/** spec.md "POST /api/v2/emails": the send response. */
export const SendAccepted = Type.Object(
  {
    id: Type.String(),
    status: Type.Literal('queued'),
    queued: Type.Boolean(),
    tracking_url: Type.String(),
    recipient_count: Type.Integer(),
  },
  { ...open },
);

/** The body of POST /api/v2/emails, as documentation (the pipeline checks it, with the spec's texts). */
export const SendRequest = Type.Object(
  {
    from: Type.String({ description: 'bare address or "Name <address>"; an active address on a verified domain' }),
    to: Type.Array(Type.String(), { minItems: 1 }),
    cc: Type.Optional(Type.Array(Type.String())),
    bcc: Type.Optional(Type.Array(Type.String())),
    subject: Type.String(),
    body_html: Type.Optional(Type.String()),
    body_text: Type.Optional(Type.String()),
  },
  { ...open, description: 'at least one of body_html and body_text; unknown fields are ignored' },
);

/** A page: `data` and `total`. */
export const Page = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), total: Type.Integer() }, open);

/** The answers every authenticated route can give besides its own (spec.md "Errors"). */
export const authErrors = {
  401: { description: 'missing Bearer token; invalid api key format; invalid or revoked api key', ...ErrorBody },
  403: { description: 'missing permission: <scope>', ...ErrorBody },
  429: { description: 'rate limit exceeded (Retry-After in seconds)', ...ErrorBody },
  503: { description: 'the store is unavailable', ...ErrorBody },
} as const;

/**
 * For a route whose request is checked by its service (with the spec's error texts): its request
 * schemas describe the request in the OpenAPI document and are not run, so a wrong field gets the
 * service's text (`invalid body: to must be an array of strings`), not ajv's.
 */
export const checkedByService = { validatorCompiler: () => () => true } as const;

/** spec.md "List" (src/lists/fields.ts listView). */
export const List = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    from_name: Type.String(),
    from_address: Type.String(),
    reply_to: Type.String({ description: 'stored only; empty when unset' }),
    double_opt_in: Type.Boolean({ description: 'svc addition: new subscribers are pending until they confirm' }),
    subscriber_count: Type.Integer(),
    created_at: Time,
    updated_at: Time,
  },
  open,
);

/** spec.md "Subscriber" (src/lists/fields.ts subscriberView). */
export const Subscriber = Type.Object(
  {
    id: Type.String(),
    list_id: Type.String(),
    email: Type.String({ description: 'lower-cased' }),
    name: Type.String(),
    status: OneOf(['pending', 'active', 'unsubscribed'] as const),
    unsubscribe_token: Type.String(),
    tags: Type.Array(Type.String()),
    created_at: Time,
    updated_at: Time,
  },
  open,
);

/** The body of POST and PATCH /api/v2/lists, as documentation (the service checks it). */
export const ListFields = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'required on create' })),
    description: Type.Optional(Type.String()),
    from_name: Type.Optional(Type.String()),
    from_address: Type.Optional(Type.String()),
    reply_to: Type.Optional(Type.String()),
    double_opt_in: Type.Optional(Type.Boolean({ description: 'svc addition' })),
  },
  open,
);

/** The body of POST /api/v2/lists/:id/subscribers, as documentation (the service checks it). */
export const SubscriberFields = Type.Object(
  { email: Type.String(), name: Type.Optional(Type.String()), tags: Type.Optional(Type.Array(Type.String())) },
  open,
);

/** The answer of a CSV import (src/lists/import.ts). */
export const ImportResult = Type.Object(
  {
    imported: Type.Integer(),
    skipped: Type.Integer(),
    errors: Nullable(Type.Array(Type.Object({ line: Type.Integer(), email: Type.String(), error: Type.String() }, open))),
    errors_total: Type.Optional(Type.Integer({ description: 'when more rows failed than are listed' })),
  },
  open,
);

/** spec.md "Sequence" (src/sequences/sequences.ts sequenceView). */
export const Sequence = Type.Object(
  {
    id: Type.String(),
    list_id: Type.String(),
    name: Type.String(),
    trigger: Type.Literal('subscribe'),
    active: Type.Boolean(),
    step_count: Type.Integer(),
    created_at: Time,
    updated_at: Time,
  },
  open,
);

/** spec.md "Sequence step" (stepView). */
export const SequenceStep = Type.Object(
  {
    id: Type.String(),
    sequence_id: Type.String(),
    position: Type.Integer(),
    delay_hours: Type.Integer(),
    subject: Type.String(),
    body_html: Type.String(),
    body_text: Type.String(),
    created_at: Time,
  },
  open,
);

/** spec.md "Other response shapes": the broadcast result. */
export const BroadcastResult = Type.Object({ campaign_id: Type.String(), status: Type.Literal('queued'), message: Type.String() }, open);

/** An item of the team inbox in a list (svc addition; src/inbox/inbox.ts inboxListItem). */
export const InboxListItem = Type.Object(
  {
    id: Type.String(),
    folder: OneOf(['inbox', 'sent'] as const),
    thread_id: Type.String(),
    from: Type.String(),
    to: Type.Array(Type.String()),
    subject: Type.String(),
    kind: Type.String({ description: 'mail, reply, auto_reply, bounce, complaint or sent' }),
    message_id: Nullable(Type.String()),
    created_at: Time,
    message_ref: Nullable(Type.String({ description: 'the message record it is about, when one matched' })),
    note: Nullable(Type.String()),
    size: Type.Integer({ description: 'bytes kept (0 for Sent copies)' }),
  },
  { ...open, description: 'svc addition' },
);

/** One item with its bodies and headers (inboxItemView). The nested parts are as received. */
export const InboxItem = Type.Object(
  {
    ...InboxListItem.properties,
    cc: Type.Unknown({ description: 'addresses in Cc' }),
    in_reply_to: Type.Unknown({ description: 'the In-Reply-To id, or null' }),
    references: Type.Unknown({ description: 'the References ids' }),
    headers: Type.Unknown({ description: 'the header fields as received' }),
    text: Type.Unknown({ description: 'the text part, or null' }),
    html: Type.Unknown({ description: 'the HTML part as received (never rendered by svc), or null' }),
    envelope: Type.Unknown({ description: 'the SMTP envelope, or null' }),
    auth: Type.Unknown({ description: 'what vouched for a received message (SPF, DKIM, DMARC, the verdict); null for Sent copies' }),
    raw: Type.Optional(Type.String({ description: 'the message as received, base64 (with ?raw=1)' })),
  },
  { ...open, description: 'svc addition' },
);

/** A thread of the team inbox in a list (svc addition). */
export const InboxThreadSummary = Type.Object(
  {
    thread_id: Type.String(),
    subject: Type.String(),
    count: Type.Integer(),
    last_at: Time,
    last_from: Type.String(),
    last_kind: Type.String(),
    received_at: Nullable(Time),
    read_at: Nullable(Time),
    archived_at: Nullable(Time),
    unread: Type.Boolean(),
    archived: Type.Boolean(),
  },
  { ...open, description: 'svc addition' },
);

/** One thread: its state and its items of both folders, oldest first (svc addition). */
export const InboxThread = Type.Object(
  {
    thread_id: Type.String(),
    read_at: Nullable(Time),
    archived_at: Nullable(Time),
    unread: Type.Boolean(),
    archived: Type.Boolean(),
    items: Type.Array(InboxListItem),
  },
  { ...open, description: 'svc addition' },
);
