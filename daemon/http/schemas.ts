// JSON schemas of the REST API's answers (TypeBox), for fastify's serialiser and the OpenAPI
// document (openapi.ts). They name every field spec.md names; objects stay open
// (additionalProperties), so a field added later reaches clients rather than being dropped by the
// serialiser, and clients are told to expect additions. The request schemas run (validation.ts):
// each is exactly as strict as its service's parser about shapes and never stricter (a null is
// "not given" where the service reads it so), since a refused request is answered with that
// parser's text.
import { Type, type Static, type TSchema } from 'typebox';
import { SOURCES } from '../../src/model/tracking.js';

export const open = { additionalProperties: true };
/**
 * A scalar or null, as `type: [T, "null"]` rather than `anyOf`: fast-json-stringify serialises the
 * former directly, and runs a validator per value to pick a branch of the latter (the message page
 * serialised at 0.83 of JSON.stringify's speed with anyOf).
 */
export const Nullable = <T extends TSchema>(t: T) => {
  const { type } = t as unknown as { type?: string };
  return type === 'array' || type === undefined
    ? Type.Union([t, Type.Null()])
    : Type.Unsafe<Static<T> | null>({ ...t, type: [type, 'null'] });
};
/** One of a few strings: an `enum` of type string (not an `anyOf` of literals, for the same reason). */
export const OneOf = <const T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
/**
 * A whole number in a query string, or empty (the default). Query strings are text: the validator
 * reads `10` as a number for these (validation.ts).
 */
export const QueryInt = (minimum: number, options: { description?: string; default?: number } = {}) =>
  Type.Union([Type.Integer({ minimum }), Type.String({ maxLength: 0 })], options);
/** One of a few words in a query string; `empty` when an empty value means the default. */
export const QueryOneOf = <const T extends readonly string[]>(values: T, empty: boolean, options: object = {}) =>
  OneOf(empty ? (['', ...values] as const) : values, options);
/** An optional field of a request that a null leaves unset, as its service reads it. */
export const Unset = <T extends TSchema>(t: T) => Type.Optional(Nullable(t));
export const Time = Type.String({ format: 'date-time' });

/**
 * fast-json-stringify's options (fastify's `serializerOpts`). It writes an answer as a rope of
 * small strings, which costs more to flatten when the answer is written out (Buffer.byteLength,
 * then the socket) than V8's JSON.stringify costs to write it flat: a page of 100 messages took
 * 100 µs against 76 µs (serialise and measure). So arrays of 20 or more are handed to
 * JSON.stringify, whose output is the same for these open objects; single records stay with the
 * schema's serialiser, which is the cheaper of the two for them (1.4 against 1.6 µs a message).
 */
export const SERIALIZER_OPTIONS = { largeArraySize: 20, largeArrayMechanism: 'json-stringify' } as const;

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

/** The body of POST /api/v2/emails (the pipeline's parser: src/send/validate.ts). */
export const SendRequest = Type.Object(
  {
    from: Type.String({ description: 'bare address or "Name <address>"; an active address on a verified domain' }),
    to: Type.Array(Type.String(), { description: 'at least one address in to, cc and bcc together; at most 1,000' }),
    cc: Unset(Type.Array(Type.String())),
    bcc: Unset(Type.Array(Type.String())),
    subject: Type.String(),
    body_html: Unset(Type.String()),
    body_text: Unset(Type.String()),
  },
  { ...open, description: 'at least one of body_html and body_text; unknown fields are ignored' },
);

/** A page: `data` and `total`. */
export const Page = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), total: Type.Integer() }, open);

/** A 404 answer of a route, naming what was not found. */
export const notFound = (what: string) => ({ 404: { description: `${what} not found`, ...ErrorBody } });
/** A 400 answer of a route, with the texts it can give. */
export const invalid = (texts: string) => ({ 400: { description: texts, ...ErrorBody } });
/** A 204 answer: no body. */
export const NoBody = { description: 'no body', type: 'null' } as const;
/** A page's place in a query string: `limit` (at most `max`; larger is cut to it) and `offset`. */
export const PageQuery = (max: number) => ({
  limit: Type.Optional(QueryInt(1, { default: 100, description: `at most ${max.toLocaleString('en')} (larger is cut to it)` })),
  offset: Type.Optional(QueryInt(0, { default: 0 })),
});

/** The answers every authenticated route can give besides its own (spec.md "Errors"). */
export const authErrors = {
  401: { description: 'missing Bearer token; invalid api key format; invalid or revoked api key', ...ErrorBody },
  403: { description: 'missing permission: <scope>', ...ErrorBody },
  429: { description: 'rate limit exceeded (Retry-After in seconds)', ...ErrorBody },
  503: { description: 'the store is unavailable', ...ErrorBody },
} as const;

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

/** The body of PATCH /api/v2/lists/:id: only the fields sent change (src/lists/fields.ts listInput). */
export const ListFields = Type.Object(
  {
    name: Unset(Type.String({ description: 'not empty' })),
    description: Unset(Type.String()),
    from_name: Unset(Type.String()),
    from_address: Unset(Type.String({ description: 'an active address on a verified domain of the workspace' })),
    reply_to: Unset(Type.String()),
    double_opt_in: Unset(Type.Boolean({ description: 'svc addition' })),
  },
  { ...open, description: 'each text at most 1,000 characters, one line' },
);

/** The body of POST /api/v2/lists: a name, the rest as in a change. */
export const ListCreate = Type.Object(
  { ...ListFields.properties, name: Type.String({ description: 'not empty' }) },
  { ...open, description: 'each text at most 1,000 characters, one line' },
);

/** The body of POST /api/v2/lists/:id/subscribers (src/lists/fields.ts subscriberInput). */
export const SubscriberFields = Type.Object(
  {
    email: Type.String(),
    name: Unset(Type.String()),
    tags: Unset(Type.Array(Type.String(), { description: 'at most 100, each at most 100 characters' })),
  },
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
