// What the store conformance suite's files share: the backend under test and the records they
// store. `backing` makes a fresh, empty store location; `open` opens a Store on it (twice, to prove
// that what was written is there after a reopen).
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Address } from '../../../../src/model/address.js';
import type { ApiKey } from '../../../../src/model/key.js';
import type { Domain, DomainCheck } from '../../../../src/model/domain.js';
import type { List, Subscriber, SubscriberStatus } from '../../../../src/model/list.js';
import type { Message } from '../../../../src/model/message.js';
import type { WebhookAttempt, WebhookEndpoint } from '../../../../src/model/webhook.js';
import type { Workspace } from '../../../../src/model/workspace.js';
import type { AcceptBatch, Store } from '../../../../src/store/types.js';
import { isSvcError } from '../../../../src/errors.js';
import type { Created } from '../../../../src/model/refusal.js';

export interface Backend<B> {
  name: string;
  backing(t: { after(fn: () => unknown): void }): Promise<B>;
  open(b: B): Promise<Store>;
}

export const ws = (name: string): Workspace => ({ id: randomUUID(), name, plan: 'trial', created_at: '2026-01-01T00:00:00.000Z' });
export const key = (workspace_id: string, hash = randomUUID().replace(/-/g, '').padEnd(64, '0')): ApiKey => ({
  id: randomUUID(),
  workspace_id,
  name: 'k',
  scopes: ['read', 'send'],
  prefix: 'svc_12345678',
  hash,
  created_at: '2026-01-01T00:00:00.000Z',
  revoked_at: null,
});

export const domain = (workspace_id: string, name: string): Domain => ({
  id: randomUUID(),
  workspace_id,
  domain: name,
  status: 'pending',
  token: 'tok-' + name,
  dkim_public_key: 'PUB',
  dkim_private_key: '-----BEGIN PRIVATE KEY-----\nX\n-----END PRIVATE KEY-----\n',
  legacy: false,
  dkim_verified: false,
  records: null,
  history: [],
  created_at: '2026-01-01T00:00:00.000Z',
  verified_at: null,
  checked_at: null,
});
export const address = (workspace_id: string, domain_id: string, addr: string): Address => ({
  id: randomUUID(),
  workspace_id,
  domain_id,
  address: addr,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
});
export const check = (at: string, verify: boolean, changes = 1): DomainCheck => ({
  records: [{ purpose: 'dkim', status: verify ? 'Verified' : 'Waiting', note: null, value: null, checked_at: at }],
  changes: Array.from({ length: changes }, () => ({
    at,
    purpose: 'dkim' as const,
    from: null,
    to: verify ? ('Verified' as const) : ('Waiting' as const),
    note: null,
  })),
  dkim_verified: verify,
  checked_at: at,
  verify,
});

/** A send of `to` at time `at`: content, one message per recipient, one job for them all. */
export function batch(workspace_id: string, to: string[], at: string): AcceptBatch {
  const content_id = randomUUID();
  const messages: Message[] = to.map((addr) => ({
    id: randomUUID(),
    workspace_id,
    content_id,
    source: 'api',
    from: 'hello@acme.test',
    to: addr,
    kind: 'to',
    subject: 'Hi',
    status: 'queued',
    open_count: 0,
    click_count: 0,
    reply_count: 0,
    first_open_after_seconds: null,
    message_id: `${content_id}@acme.test`,
    error: null,
    notes: [],
    created_at: at,
    sent_at: null,
    opened_at: null,
    clicked_at: null,
    replied_at: null,
    bounced_at: null,
    token: randomUUID().replace(/-/g, ''),
  }));
  return {
    content: {
      id: content_id,
      workspace_id,
      source: 'api',
      from: 'hello@acme.test',
      from_name: 'Acme',
      domain_id: randomUUID(),
      to: to.map((address) => ({ name: null, address })),
      cc: [],
      subject: 'Hi',
      html: '<p>x</p>',
      text: null,
      message_id: `${content_id}@acme.test`,
      notes: [],
      created_at: at,
    },
    messages,
    jobs: [
      {
        id: randomUUID(),
        workspace_id,
        content_id,
        domain: 'rcpt.test',
        message_ids: messages.map((m) => m.id),
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
        last_error: null,
      },
    ],
    events: [],
  };
}

export const endpoint = (workspace_id: string, events: string[], created_at = '2026-01-01T00:00:00.000Z'): WebhookEndpoint => ({
  id: randomUUID(),
  workspace_id,
  url: 'https://hooks.example/' + randomUUID(),
  events,
  secret: 'whsec_' + randomUUID(),
  status: 'enabled',
  disabled_reason: null,
  failing_since: null,
  created_at,
  secret_rotated_at: null,
  previous_secret: null,
  previous_secret_until: null,
});

export const attemptOf = (
  e: WebhookEndpoint,
  job: { id: string; event_id: string; event: string; message_id: string } | null,
  ok: boolean,
  at: string,
  n = 1,
): WebhookAttempt => ({
  id: randomUUID(),
  workspace_id: e.workspace_id,
  endpoint_id: e.id,
  job_id: job?.id ?? null,
  event_id: job?.event_id ?? 'test_1',
  event: job?.event ?? 'message.sent',
  message_id: job?.message_id ?? 'test_1',
  payload: { message_id: job?.message_id ?? 'test_1', from: 'a@b.test', subject: 's' },
  kind: job ? 'event' : 'test',
  attempt: n,
  ok,
  status_code: ok ? 200 : 500,
  error: ok ? null : 'answered 500',
  response: ok ? 'ok' : 'no',
  duration_ms: 3,
  attempted_at: at,
});

export const rejectsWith = (p: Promise<unknown>, kind: string) => assert.rejects(p, (e) => isSvcError(e) && e.kind === kind);

/** A store of the backend, empty, closed when the test ends. */
export async function fresh<B>(backend: Backend<B>, t: { after(fn: () => unknown): void }) {
  const b = await backend.backing(t);
  const store = await backend.open(b);
  t.after(() => store.close());
  return { b, store };
}

/** The record a create answered, failing the test on a refusal. */
export async function created<T extends object>(p: Promise<Created<T>>): Promise<T> {
  const r = await p;
  assert.ok(!('refused' in r), `refused: ${JSON.stringify(r)}`);
  return r as T;
}

/**
 * Two workspaces, acme and other, and a send from acme to Jane and Bob accepted at 10:00 on
 * 2026-01-01 and handed off (`sent`) at `sentAt`: what the message-event tests start from.
 */
export async function sentToJaneAndBob(store: Store, sentAt: string) {
  const a = await store.workspaces.create(ws('acme'));
  const other = await store.workspaces.create(ws('other'));
  const send = batch(a.id, ['jane@rcpt.test', 'bob@rcpt.test'], '2026-01-01T10:00:00.000Z');
  assert.equal(await store.messages.accept(send), null);
  const [jane, bob] = send.messages as [Message, Message];
  await store.queue.complete(send.jobs[0]!.id, {
    updates: send.messages.map((m) => ({ id: m.id, status: 'sent' as const, sent_at: sentAt })),
    events: [],
    suppressions: [],
  });
  return { a, other, send, jane, bob };
}

const LIST_AT = '2026-01-01T10:00:00.000Z';
/** A list of the workspace's, as a store keeps it. */
export const list = (workspace_id: string, name: string, over: Partial<List> = {}): List => ({
  id: randomUUID(),
  workspace_id,
  name,
  description: '',
  from_name: '',
  from_address: '',
  reply_to: '',
  double_opt_in: false,
  created_at: LIST_AT,
  updated_at: LIST_AT,
  ...over,
});
/** A subscriber of the list. */
export const sub = (l: List, email: string, status: SubscriberStatus = 'active', over: Partial<Subscriber> = {}): Subscriber => ({
  id: randomUUID(),
  list_id: l.id,
  workspace_id: l.workspace_id,
  email,
  name: '',
  status,
  unsubscribe_token: randomBytes(32).toString('base64url'),
  tags: [],
  created_at: LIST_AT,
  updated_at: LIST_AT,
  ...over,
});
