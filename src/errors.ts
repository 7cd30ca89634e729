// One error registry (DESIGN.md "Style"): every kind of failure the service can report, with the
// spec's text, its HTTP status, its SMTP reply and its CLI exit code. Transports map a SvcError
// through this table and nowhere else.

export interface ErrorKind {
  /** spec.md's error text; a SvcError may carry a more specific one of the same kind. */
  message: string;
  http: number;
  /** SMTP reply (code, enhanced code and text) where the relay can meet this error. */
  smtp: string | null;
  /** The SMTP reply carries the error's own message after the code (a quota's "resets at ..."). */
  smtpWithMessage?: true;
  /** CLI exit code (CONTRACT.md: 1 failure, 2 wrong usage, 3 checked, not yet). */
  exit: 1 | 2 | 3;
}

export const errorKinds = {
  invalid_body: { message: 'invalid body', http: 400, smtp: null, exit: 2 },
  invalid_argument: { message: 'invalid argument', http: 400, smtp: null, exit: 2 },
  usage: { message: 'wrong usage', http: 400, smtp: null, exit: 2 },
  missing_bearer: { message: 'missing Bearer token', http: 401, smtp: null, exit: 1 },
  invalid_key_format: {
    message: 'invalid api key format',
    http: 401,
    smtp: '535 5.7.8 Authentication credentials invalid (not an API key)',
    exit: 1,
  },
  invalid_key: {
    message: 'invalid or revoked api key',
    http: 401,
    smtp: '535 5.7.8 Authentication credentials invalid (invalid or revoked key)',
    exit: 1,
  },
  missing_permission: {
    message: 'missing permission',
    http: 403,
    smtp: '535 5.7.8 Authentication credentials invalid (missing send scope)',
    exit: 1,
  },
  /** The relay's own refusals (spec.md "SMTP relay", reply codes), each with the reply it gives. */
  auth_required: { message: 'authentication required', http: 401, smtp: '530 5.7.0 Authentication required', exit: 1 },
  auth_throttled: {
    message: 'too many failed logins from this address',
    http: 429,
    smtp: '421 4.7.0 Too many failed logins from your address, try again later',
    exit: 1,
  },
  auth_failures: {
    message: 'too many failed authentication attempts',
    http: 429,
    smtp: '421 4.7.0 Too many failed authentication attempts, closing connection',
    exit: 1,
  },
  invalid_sender: { message: 'invalid sender address', http: 400, smtp: '501 5.5.4 Invalid sender address', exit: 2 },
  invalid_recipient: { message: 'invalid recipient address', http: 400, smtp: '501 5.5.4 Invalid recipient address', exit: 2 },
  too_many_recipients: { message: 'too many recipients', http: 400, smtp: '452 4.5.3 Too many recipients', exit: 2 },
  message_too_big: { message: 'message too big', http: 413, smtp: '552 5.3.4 Message too big: 25 MB at most', exit: 1 },
  /** RFC 5321 §4.1.1.11: a MAIL or RCPT parameter of an extension the listener does not advertise. */
  unsupported_parameter: { message: 'parameter not supported', http: 400, smtp: '555 5.5.4', smtpWithMessage: true, exit: 2 },
  bad_sequence: { message: 'commands out of order', http: 400, smtp: '503 5.5.1 Bad sequence of commands', exit: 2 },
  request_timeout: {
    message: 'request timeout: the request did not arrive in time, or its body came too slowly',
    http: 408,
    smtp: null,
    exit: 1,
  },
  too_many_connections: { message: 'too many connections', http: 503, smtp: '421 4.7.0 Too many connections, try again later', exit: 1 },
  too_many_connections_from_address: {
    message: 'too many connections from this address',
    http: 503,
    smtp: '421 4.7.0 Too many connections from your address, try again later',
    exit: 1,
  },
  relay_memory_full: {
    message: 'too much mail in progress',
    http: 503,
    smtp: '451 4.3.1 Insufficient system resources: too much mail in progress, try again later',
    exit: 1,
  },
  connection_time_limit: {
    message: 'connection time limit reached',
    http: 408,
    smtp: '421 4.4.2 Connection time limit reached, closing',
    exit: 1,
  },
  /** The inbound MX's refusals (CONTRACT.md "The MX"): never an open relay, never a lost message. */
  unknown_mailbox: { message: 'no such mailbox', http: 404, smtp: '550 5.1.1 No such mailbox here', exit: 1 },
  relay_denied: {
    message: 'this server does not take mail for that domain',
    http: 403,
    smtp: '550 5.7.1 Relaying denied: we do not take mail for that domain',
    exit: 1,
  },
  /** The From domain's DMARC policy is reject and the message fails it (src/inbox/authenticate.ts). */
  dmarc_reject: {
    message: "the sender domain's DMARC policy rejects this message",
    http: 403,
    smtp: '550 5.7.1 Message rejected: it fails the DMARC policy (p=reject) of its From domain',
    exit: 1,
  },
  storage_quota: {
    message: 'storage quota reached',
    http: 429,
    smtp: '452 4.2.2 Mailbox storage quota reached for this workspace; try again later',
    exit: 1,
  },
  /** The MX's rates (src/inbox/mx-rate.ts): deferred, so the sending server keeps the mail and retries. */
  mx_sender_rate: {
    message: 'too much mail from this sender',
    http: 429,
    smtp: '451 4.7.1 Too much mail from this sender in the last minute; try again later',
    exit: 1,
  },
  mx_workspace_rate: {
    message: 'too much mail for this workspace',
    http: 429,
    smtp: "451 4.7.1 Too much mail for this recipient's workspace in the last minute; try again later",
    exit: 1,
  },
  /** A request the spec refuses with a 400 and its own text (POST /emails rules). */
  invalid_request: { message: 'invalid request', http: 400, smtp: '550 5.6.0 Message refused', exit: 2 },
  /** From is not an active registered address on a verified domain of the workspace. */
  sender_not_authorized: { message: 'sender not authorized', http: 403, smtp: '553 5.7.1 Sender not authorized', exit: 1 },
  /** Allowed for the key, refused for the workspace (trial rules). */
  forbidden: { message: 'forbidden', http: 403, smtp: '550 5.7.1 Sending not allowed for this workspace', exit: 1 },
  not_found: { message: 'not found', http: 404, smtp: null, exit: 1 },
  /** The web app's sign-in: the same answer whether the email or the password was wrong. */
  sign_in_failed: { message: 'wrong email or password', http: 401, smtp: null, exit: 1 },
  rate_limited: { message: 'rate limit exceeded', http: 429, smtp: null, exit: 1 },
  idempotency_unavailable: { message: 'idempotency store unavailable, please retry (nothing sent)', http: 503, smtp: null, exit: 1 },
  conflict: { message: 'already exists', http: 409, smtp: null, exit: 1 },
  /** A short id (a prefix) that fits several records: the candidates are named (command line only). */
  ambiguous: { message: 'ambiguous id', http: 400, smtp: null, exit: 1 },
  /** A destructive command whose question on a terminal was answered no: nothing changed (command line only). */
  cancelled: { message: 'cancelled: nothing was changed', http: 409, smtp: null, exit: 1 },
  /** The same Idempotency-Key with another request body (Stripe, the IETF idempotency draft: 422). */
  idempotency_mismatch: {
    message: 'this Idempotency-Key was already used with a different request body; use a new key for a new email',
    http: 422,
    smtp: null,
    exit: 1,
  },
  /** Count quotas (domains, addresses, seats, contacts): spec.md "Errors", 402, app only. */
  plan_limit: { message: 'plan limit reached', http: 402, smtp: null, exit: 1 },
  /** Send quotas: 429 with code quota_exceeded; the relay defers with 452. */
  quota_exceeded: { message: 'quota exceeded', http: 429, smtp: '452 4.5.3', smtpWithMessage: true, exit: 1 },
  body_too_large: { message: 'request body too large', http: 413, smtp: null, exit: 1 },
  store_locked: { message: 'store is locked by another process', http: 503, smtp: '451 4.3.0 Queue failure, retry later', exit: 1 },
  store_corrupt: { message: 'store data file cannot be read', http: 500, smtp: '451 4.3.0 Queue failure, retry later', exit: 1 },
  schema_behind: {
    message: 'postgres schema is behind: run svc migrate',
    http: 503,
    smtp: '451 4.3.0 Queue failure, retry later',
    exit: 1,
  },
  store_unavailable: { message: 'store unavailable', http: 503, smtp: '451 4.3.0 Queue failure, retry later', exit: 1 },
  internal: { message: 'internal error', http: 500, smtp: '451 4.3.0 Queue failure, retry later', exit: 1 },
} as const satisfies Record<string, ErrorKind>;

export type ErrorKindName = keyof typeof errorKinds;

export class SvcError extends Error {
  readonly kind: ErrorKindName;
  /** Extra fields of the error body (a quota refusal's kind, limit, used...). */
  readonly details: Record<string, unknown> | undefined;
  /** Response headers that go with it over HTTP (Retry-After of a rate limit). */
  readonly headers: Record<string, string> | undefined;
  constructor(
    kind: ErrorKindName,
    message?: string,
    options?: { cause?: unknown; details?: Record<string, unknown>; headers?: Record<string, string> },
  ) {
    super(message ?? errorKinds[kind].message, options);
    this.kind = kind;
    this.name = 'SvcError';
    this.details = options?.details;
    this.headers = options?.headers;
  }
  get spec(): ErrorKind {
    return errorKinds[this.kind];
  }
}

export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}

/** The SMTP reply of an error, from the registry: code and text (451 4.3.0 for kinds without one). */
export function smtpReplyOf(e: SvcError): { code: number; text: string } {
  const spec: ErrorKind = errorKinds[e.kind];
  const reply = spec.smtp ?? '451 4.3.0 Queue failure, retry later';
  const code = Number(reply.slice(0, 3));
  const text = reply.slice(4) + (spec.smtpWithMessage ? ` ${e.message.replace(/[\r\n]+/g, ' ')}` : '');
  return { code, text };
}

/** Anything thrown becomes a SvcError; unknown failures are `internal` and keep their cause. */
export function toSvcError(e: unknown): SvcError {
  if (e instanceof SvcError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new SvcError('internal', message, { cause: e });
}
