// The store conformance suite (DESIGN.md "One store interface"): the same tests against every
// backend. `backing` makes a fresh, empty store location; `open` opens a Store on it (twice, to
// prove that what was written is there after a reopen).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AcceptBatch, Address, ApiKey, Domain, DomainCheck, Message, Store, WebhookAttempt, WebhookEndpoint, Workspace } from '../../../src/store/types.js';
import { isSvcError } from '../../../src/errors.js';

export interface Backend<B> {
  name: string;
  backing(t: { after(fn: () => unknown): void }): Promise<B>;
  open(b: B): Promise<Store>;
}

const ws = (name: string): Workspace => ({ id: randomUUID(), name, plan: 'trial', created_at: '2026-01-01T00:00:00.000Z' });
const key = (workspace_id: string, hash = randomUUID().replace(/-/g, '').padEnd(64, '0')): ApiKey => ({
  id: randomUUID(),
  workspace_id,
  name: 'k',
  scopes: ['read', 'send'],
  prefix: 'svc_12345678',
  hash,
  created_at: '2026-01-01T00:00:00.000Z',
  revoked_at: null,
});

const domain = (workspace_id: string, name: string): Domain => ({
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
const address = (workspace_id: string, domain_id: string, addr: string): Address => ({
  id: randomUUID(),
  workspace_id,
  domain_id,
  address: addr,
  status: 'active',
  created_at: '2026-01-01T00:00:00.000Z',
});
const check = (at: string, verify: boolean, changes = 1): DomainCheck => ({
  records: [{ purpose: 'dkim', status: verify ? 'Verified' : 'Waiting', note: null, value: null, checked_at: at }],
  changes: Array.from({ length: changes }, () => ({ at, purpose: 'dkim' as const, from: null, to: verify ? ('Verified' as const) : ('Waiting' as const), note: null })),
  dkim_verified: verify,
  checked_at: at,
  verify,
});

/** A send of `to` at time `at`: content, one message per recipient, one job for them all. */
function batch(workspace_id: string, to: string[], at: string): AcceptBatch {
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
  }));
  return {
    content: { id: content_id, workspace_id, source: 'api', from: 'hello@acme.test', from_name: 'Acme', domain_id: randomUUID(), to: to.map((address) => ({ name: null, address })), cc: [], subject: 'Hi', html: '<p>x</p>', text: null, message_id: `${content_id}@acme.test`, notes: [], created_at: at },
    messages,
    jobs: [{ id: randomUUID(), workspace_id, content_id, domain: 'rcpt.test', message_ids: messages.map((m) => m.id), open_token: 'tok', attempts: 0, next_attempt_at: at, created_at: at, last_error: null }],
    events: [],
  };
}

const endpoint = (workspace_id: string, events: string[], created_at = '2026-01-01T00:00:00.000Z'): WebhookEndpoint => ({
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
});

const attemptOf = (e: WebhookEndpoint, job: { id: string; event_id: string; event: string; message_id: string } | null, ok: boolean, at: string, n = 1): WebhookAttempt => ({
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

const rejectsWith = (p: Promise<unknown>, kind: string) => assert.rejects(p, (e) => isSvcError(e) && e.kind === kind);

export function storeConformance<B>(backend: Backend<B>): void {
  const fresh = async (t: { after(fn: () => unknown): void }) => {
    const b = await backend.backing(t);
    const store = await backend.open(b);
    t.after(() => store.close());
    return { b, store };
  };

  test(`${backend.name}: workspaces create, list, getByName, setPlan`, async (t) => {
    const { store } = await fresh(t);
    assert.deepEqual(await store.workspaces.list(), []);
    const a = await store.workspaces.create(ws('acme'));
    await store.workspaces.create(ws('beta'));
    assert.equal(a.name, 'acme');
    assert.deepEqual((await store.workspaces.list()).map((w) => w.name), ['acme', 'beta']);
    assert.deepEqual(await store.workspaces.getByName('acme'), a);
    assert.equal(await store.workspaces.getByName('nope'), null);
    const upd = await store.workspaces.setPlan(a.id, 'pro');
    assert.equal(upd?.plan, 'pro');
    assert.equal((await store.workspaces.getByName('acme'))?.plan, 'pro');
    assert.equal(await store.workspaces.setPlan(randomUUID(), 'pro'), null);
  });

  test(`${backend.name}: a taken workspace name is a conflict and changes nothing`, async (t) => {
    const { store } = await fresh(t);
    await store.workspaces.create(ws('acme'));
    await rejectsWith(store.workspaces.create(ws('acme')), 'conflict');
    assert.equal((await store.workspaces.list()).length, 1);
  });

  test(`${backend.name}: keys create, list per workspace, findByHash, revoke once`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const k1 = await store.keys.create(key(a.id));
    const k2 = await store.keys.create(key(b.id));
    assert.deepEqual((await store.keys.listByWorkspace(a.id)).map((k) => k.id), [k1.id]);
    assert.deepEqual((await store.keys.listByWorkspace(b.id)).map((k) => k.id), [k2.id]);
    const found = await store.keys.findByHash(k1.hash);
    assert.equal(found?.key.id, k1.id);
    assert.equal(found?.workspace.name, 'acme');
    assert.deepEqual(found?.key.scopes, ['read', 'send']);
    assert.equal(await store.keys.findByHash('f'.repeat(64)), null);
    // Another workspace's key cannot be revoked through this one.
    assert.equal(await store.keys.revoke(a.id, k2.id, '2026-01-02T00:00:00.000Z'), null);
    assert.equal(await store.keys.revoke(a.id, randomUUID(), '2026-01-02T00:00:00.000Z'), null);
    const r1 = await store.keys.revoke(a.id, k1.id, '2026-01-02T00:00:00.000Z');
    assert.equal(r1?.revoked_at, '2026-01-02T00:00:00.000Z');
    const r2 = await store.keys.revoke(a.id, k1.id, '2026-01-03T00:00:00.000Z');
    assert.equal(r2?.revoked_at, '2026-01-02T00:00:00.000Z');
    assert.equal((await store.keys.findByHash(k1.hash))?.key.revoked_at, '2026-01-02T00:00:00.000Z');
    assert.equal((await store.keys.findByHash(k2.hash))?.key.revoked_at, null);
  });

  test(`${backend.name}: a key for an unknown workspace or with a used hash is refused`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    await rejectsWith(store.keys.create(key(randomUUID())), 'not_found');
    const k = await store.keys.create(key(a.id));
    await rejectsWith(store.keys.create(key(a.id, k.hash)), 'conflict');
    assert.equal((await store.keys.listByWorkspace(a.id)).length, 1);
  });

  test(`${backend.name}: results are copies, not the store's own records`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const k = await store.keys.create(key(a.id));
    a.plan = 'scale';
    k.scopes.push('*');
    (await store.keys.findByHash(k.hash))!.key.scopes.push('*');
    assert.equal((await store.workspaces.getByName('acme'))?.plan, 'trial');
    assert.deepEqual((await store.keys.findByHash(k.hash))?.key.scopes, ['read', 'send']);
  });

  test(`${backend.name}: domains per workspace, the count limit, and one verifying workspace`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const da = await store.domains.create(domain(a.id, 'example.com'), 2);
    assert.equal(da.status, 'pending');
    await rejectsWith(store.domains.create(domain(a.id, 'example.com'), 5), 'conflict');
    // The same domain may be pending in another workspace.
    const db = await store.domains.create(domain(b.id, 'example.com'), 1);
    await store.domains.create(domain(a.id, 'example.org'), 2);
    await assert.rejects(store.domains.create(domain(a.id, 'example.net'), 2), (e) => isSvcError(e) && e.kind === 'plan_limit' && e.details?.limit === 2 && e.details?.used === 2);
    await rejectsWith(store.domains.create(domain(randomUUID(), 'x.com'), null), 'not_found');
    assert.deepEqual((await store.domains.listByWorkspace(a.id)).map((d) => d.domain), ['example.com', 'example.org']);
    assert.equal((await store.domains.listAll()).length, 3);
    assert.equal((await store.domains.get(a.id, 'example.com'))?.dkim_private_key, da.dkim_private_key);
    assert.equal(await store.domains.get(a.id, 'nope.com'), null);
    assert.equal((await store.domains.byId(da.id))?.domain, 'example.com');
    assert.equal(await store.domains.byId(randomUUID()), null);

    // A check that does not pass records statuses and history, and leaves the domain pending.
    const c1 = await store.domains.saveCheck(db.id, check('2026-01-02T00:00:00.000Z', false));
    assert.equal(c1.status, 'pending');
    assert.equal(c1.records?.[0]?.status, 'Waiting');
    assert.equal(c1.checked_at, '2026-01-02T00:00:00.000Z');
    // The first workspace to pass verifies; the other is refused after that.
    const v = await store.domains.saveCheck(db.id, check('2026-01-03T00:00:00.000Z', true));
    assert.deepEqual([v.status, v.verified_at, v.dkim_verified, v.history.length], ['verified', '2026-01-03T00:00:00.000Z', true, 2]);
    assert.equal(await store.domains.verifiedBy('example.com'), b.id);
    assert.equal(await store.domains.verifiedBy('example.org'), null);
    await rejectsWith(store.domains.saveCheck(da.id, check('2026-01-04T00:00:00.000Z', true)), 'conflict');
    assert.equal((await store.domains.get(a.id, 'example.com'))?.status, 'pending');
    // A verified domain stays verified when a later check fails; history is bounded.
    const later = await store.domains.saveCheck(db.id, check('2026-01-05T00:00:00.000Z', false, 150));
    assert.deepEqual([later.status, later.dkim_verified, later.history.length], ['verified', false, 100]);
    await rejectsWith(store.domains.saveCheck(randomUUID(), check('2026-01-05T00:00:00.000Z', false)), 'not_found');
  });

  test(`${backend.name}: addresses on a workspace's domains, limits, status, removal with the domain`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const d = await store.domains.create(domain(a.id, 'example.com'), null);
    const hello = await store.addresses.create(address(a.id, d.id, 'hello@example.com'), 2);
    await rejectsWith(store.addresses.create(address(a.id, d.id, 'hello@example.com'), 5), 'conflict');
    await store.addresses.create(address(a.id, d.id, 'support@example.com'), 2);
    await assert.rejects(store.addresses.create(address(a.id, d.id, 'x@example.com'), 2), (e) => isSvcError(e) && e.kind === 'plan_limit');
    // Another workspace cannot hang an address on this workspace's domain.
    await rejectsWith(store.addresses.create(address(b.id, d.id, 'y@example.com'), null), 'not_found');
    assert.deepEqual((await store.addresses.listByWorkspace(a.id)).map((x) => x.address), ['hello@example.com', 'support@example.com']);
    assert.equal((await store.addresses.get(a.id, 'hello@example.com'))?.id, hello.id);
    assert.equal(await store.addresses.get(b.id, 'hello@example.com'), null);
    assert.equal((await store.addresses.setStatus(a.id, hello.id, 'disabled'))?.status, 'disabled');
    assert.equal(await store.addresses.setStatus(b.id, hello.id, 'active'), null);
    assert.equal(await store.addresses.remove(b.id, hello.id), false);
    assert.equal(await store.addresses.remove(a.id, hello.id), true);
    assert.equal(await store.addresses.remove(a.id, hello.id), false);
    assert.equal(await store.domains.remove(b.id, d.id), false);
    assert.equal(await store.domains.remove(a.id, d.id), true);
    assert.deepEqual(await store.addresses.listByWorkspace(a.id), []);
    assert.deepEqual(await store.domains.listByWorkspace(a.id), []);
  });

  test(`${backend.name}: messages: accept, get, list newest first with filters and paging, contents`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const b1 = batch(a.id, ['Jane@Rcpt.test', 'bob@rcpt.test'], '2026-01-01T10:00:00.000Z');
    const b2 = batch(a.id, ['carol@other.test'], '2026-01-01T11:00:00.000Z');
    await store.messages.accept(b1);
    await store.messages.accept(b2);
    await store.messages.accept(batch(b.id, ['jane@rcpt.test'], '2026-01-01T12:00:00.000Z'));
    const all = await store.messages.list(a.id, { limit: 100, offset: 0 });
    assert.equal(all.total, 3);
    assert.deepEqual(all.data.map((m) => m.to), ['carol@other.test', 'bob@rcpt.test', 'Jane@Rcpt.test']);
    assert.deepEqual(all.data[0], b2.messages[0]);
    const page = await store.messages.list(a.id, { limit: 1, offset: 1 });
    assert.deepEqual([page.total, page.data.map((m) => m.to)], [3, ['bob@rcpt.test']]);
    assert.deepEqual((await store.messages.list(a.id, { recipient: 'JANE', limit: 100, offset: 0 })).data.map((m) => m.to), ['Jane@Rcpt.test']);
    assert.equal((await store.messages.list(a.id, { recipient: '%', limit: 100, offset: 0 })).total, 0);
    assert.equal((await store.messages.list(a.id, { status: 'sent', limit: 100, offset: 0 })).total, 0);
    assert.equal((await store.messages.get(a.id, b1.messages[0]!.id))?.to, 'Jane@Rcpt.test');
    assert.equal(await store.messages.get(b.id, b1.messages[0]!.id), null, 'another workspace sees nothing');
    assert.deepEqual((await store.messages.byIds([b1.messages[1]!.id, 'nope'])).map((m) => m.to), ['bob@rcpt.test']);
    assert.deepEqual(await store.messages.content(b1.content.id), b1.content);
    // Relayed attachments go with the content, byte for byte.
    const withFiles = batch(a.id, ['files@rcpt.test'], '2026-01-01T10:00:00.000Z');
    withFiles.content.attachments = [
      { filename: 'a.pdf', content_type: 'application/pdf', disposition: 'attachment', cid: null, content: 'JVBERi0xLjQK' },
      { filename: null, content_type: 'image/png', disposition: 'inline', cid: 'logo@acme', content: 'iVBORw0KGgo=' },
    ];
    await store.messages.accept(withFiles);
    assert.deepEqual(await store.messages.content(withFiles.content.id), withFiles.content);
    assert.equal(await store.messages.content('nope'), null);
  });

  test(`${backend.name}: queue: claim what is due under a lease, complete or reschedule, in one call`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b1 = batch(a.id, ['jane@rcpt.test', 'gone@rcpt.test', 'slow@rcpt.test'], '2026-01-01T10:00:00.000Z');
    const later = batch(a.id, ['x@rcpt.test'], '2026-01-01T10:00:00.000Z');
    // Tried once and due again later (a job never tried is due at once, whatever its time says).
    later.jobs[0]!.next_attempt_at = '2026-01-01T12:00:00.000Z';
    later.jobs[0]!.attempts = 1;
    await store.messages.accept(b1);
    await store.messages.accept(later);
    assert.equal(await store.queue.depth(), 2);
    const now = '2026-01-01T10:00:01.000Z';
    const claimed = await store.queue.claim('w1', now, 60_000, 10);
    assert.deepEqual(claimed.map((j) => j.id), [b1.jobs[0]!.id]);
    assert.deepEqual(claimed[0]!.message_ids, b1.jobs[0]!.message_ids);
    // Leased: another worker gets nothing until the lease ends, even with its clock far ahead
    // (leases are the store's: a lease of 60 s holds, whatever the caller's clock says).
    assert.deepEqual(await store.queue.claim('w2', now, 60_000, 10), []);
    // A heartbeat from someone else changes nothing; the owner's keeps the job.
    await store.queue.renew('w2', [b1.jobs[0]!.id], now, 0);
    assert.deepEqual(await store.queue.claim('w2', now, 60_000, 10), []);
    // The owner shortens it to nothing (as a lease that ran out): another worker takes the job.
    await store.queue.renew('w1', [b1.jobs[0]!.id], now, 0);
    const stolen = await store.queue.claim('w2', '2026-01-01T10:00:01.001Z', 60_000, 10);
    assert.deepEqual(stolen.map((j) => j.id), [b1.jobs[0]!.id]);
    const [jane, gone, slow] = b1.messages as [Message, Message, Message];
    await store.queue.complete(b1.jobs[0]!.id, {
      updates: [
        { id: jane.id, status: 'sent', sent_at: now },
        { id: gone.id, status: 'bounced', error: '550 no', bounced_at: now },
      ],
      events: [
        { id: randomUUID(), workspace_id: a.id, event: 'message.sent', message_id: jane.id, payload: { message_id: jane.id }, created_at: now },
        { id: randomUUID(), workspace_id: a.id, event: 'message.bounced', message_id: gone.id, payload: { message_id: gone.id }, created_at: now },
      ],
      suppressions: [{ workspace_id: a.id, address: 'gone@rcpt.test', reason: 'bounce', detail: '550 no', created_at: now }],
      retry: { message_ids: [slow.id], next_attempt_at: '2026-01-01T10:30:00.000Z', last_error: '451 later' },
    });
    const byId = new Map((await store.messages.byIds(b1.messages.map((m) => m.id))).map((m) => [m.id, m]));
    assert.deepEqual([byId.get(jane.id)?.status, byId.get(jane.id)?.sent_at], ['sent', now]);
    assert.deepEqual([byId.get(gone.id)?.status, byId.get(gone.id)?.error, byId.get(gone.id)?.bounced_at], ['bounced', '550 no', now]);
    assert.equal(byId.get(slow.id)?.status, 'queued');
    assert.deepEqual((await store.outbox.pending(10)).map((e) => e.event), ['message.sent', 'message.bounced']);
    assert.deepEqual((await store.suppressions.find(a.id, ['gone@rcpt.test', 'jane@rcpt.test'])).map((x) => x.address), ['gone@rcpt.test']);
    // The rescheduled job holds only the recipient left, once due, with its lease gone.
    assert.deepEqual(await store.queue.claim('w1', '2026-01-01T10:29:00.000Z', 60_000, 10), []);
    const retried = await store.queue.claim('w1', '2026-01-01T10:30:00.000Z', 60_000, 10);
    assert.deepEqual([retried[0]?.message_ids, retried[0]?.attempts, retried[0]?.last_error], [[slow.id], 1, '451 later']);
    await store.queue.complete(retried[0]!.id, { updates: [{ id: slow.id, status: 'sent', sent_at: '2026-01-01T10:30:01.000Z' }], events: [], suppressions: [] });
    assert.equal(await store.queue.depth(), 1);
    // The content stays while the send has unfinished jobs only.
    assert.equal(await store.messages.content(b1.content.id), null);
    assert.ok(await store.messages.content(later.content.id));
  });

  test(`${backend.name}: queue: concurrent completions each take effect once, and a content goes with its last job`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const at = '2026-01-01T10:00:00.000Z';
    // One send to three domains (a job each), and twenty sends of one recipient.
    const multi = batch(a.id, ['a@one.test', 'b@two.test', 'c@three.test'], at);
    multi.jobs = multi.messages.map((m) => ({ ...multi.jobs[0]!, id: randomUUID(), domain: m.to.split('@')[1]!, message_ids: [m.id] }));
    const singles = Array.from({ length: 20 }, (_, i) => batch(a.id, [`r${i}@rcpt.test`], at));
    for (const b of [multi, ...singles]) await store.messages.accept(b);
    const claimed = await store.queue.claim('w', '2026-01-01T10:00:01.000Z', 60_000, 100);
    assert.equal(claimed.length, 23);
    const now = '2026-01-01T10:00:02.000Z';
    const bounce = (m: Message) => ({
      updates: [{ id: m.id, status: 'bounced' as const, error: '550 no', bounced_at: now }],
      events: [{ id: randomUUID(), workspace_id: a.id, event: 'message.bounced' as const, message_id: m.id, payload: { message_id: m.id }, created_at: now }],
      // Every bounce suppresses the same address too: it must be added once, without a conflict.
      suppressions: [m.to, 'shared@rcpt.test'].map((address) => ({ workspace_id: a.id, address, reason: 'bounce' as const, detail: '550 no', created_at: now })),
    });
    const [ma, mb, mc] = multi.messages as [Message, Message, Message];
    await Promise.all([
      store.queue.complete(multi.jobs[0]!.id, { updates: [{ id: ma.id, status: 'sent', sent_at: now }], events: [], suppressions: [] }),
      store.queue.complete(multi.jobs[1]!.id, bounce(mb)),
      store.queue.complete(multi.jobs[2]!.id, { updates: [], events: [], suppressions: [], retry: { message_ids: [mc.id], next_attempt_at: '2026-01-01T11:00:00.000Z', last_error: '451 later' } }),
      ...singles.map((b, i) => store.queue.complete(b.jobs[0]!.id, i % 2 ? bounce(b.messages[0]!) : { updates: [{ id: b.messages[0]!.id, status: 'sent', sent_at: now }], events: [], suppressions: [] })),
    ]);
    const all = await store.messages.byIds([...multi.messages, ...singles.flatMap((b) => b.messages)].map((m) => m.id));
    assert.deepEqual(all.map((m) => m.status), ['sent', 'bounced', 'queued', ...singles.map((_, i) => (i % 2 ? 'bounced' : 'sent'))]);
    assert.equal((await store.outbox.pending(100)).length, 11);
    assert.equal((await store.suppressions.list(a.id)).length, 12);
    // One job is left (the retried one), and so is its send's content; the others' went with them.
    assert.equal(await store.queue.depth(), 1);
    assert.ok(await store.messages.content(multi.content.id));
    assert.equal(await store.messages.content(singles[0]!.content.id), null);
    const [again] = await store.queue.claim('w', '2026-01-01T11:00:00.000Z', 60_000, 10);
    assert.deepEqual([again?.id, again?.attempts, again?.message_ids], [multi.jobs[2]!.id, 1, [mc.id]]);
    await store.queue.complete(again!.id, { updates: [{ id: mc.id, status: 'sent', sent_at: now }], events: [], suppressions: [] });
    assert.equal(await store.messages.content(multi.content.id), null);
  });

  test(`${backend.name}: suppressions: add once, list, find, remove`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const first = await store.suppressions.add({ workspace_id: a.id, address: 'x@y.test', reason: 'bounce', detail: '550', created_at: '2026-01-01T00:00:00.000Z' });
    const again = await store.suppressions.add({ workspace_id: a.id, address: 'x@y.test', reason: 'manual', detail: null, created_at: '2026-01-02T00:00:00.000Z' });
    assert.deepEqual(again, first);
    await store.suppressions.add({ workspace_id: a.id, address: 'z@y.test', reason: 'manual', detail: null, created_at: '2026-01-03T00:00:00.000Z' });
    assert.deepEqual((await store.suppressions.list(a.id)).map((x) => x.address), ['x@y.test', 'z@y.test']);
    assert.deepEqual(await store.suppressions.list(b.id), []);
    assert.deepEqual(await store.suppressions.find(b.id, ['x@y.test']), []);
    assert.equal(await store.suppressions.remove(a.id, 'x@y.test'), true);
    assert.equal(await store.suppressions.remove(a.id, 'x@y.test'), false);
    assert.deepEqual((await store.suppressions.find(a.id, ['x@y.test', 'z@y.test'])).map((x) => x.address), ['z@y.test']);
  });

  test(`${backend.name}: the TLS identity is saved once and kept`, async (t) => {
    const { b, store } = await fresh(t);
    assert.equal(await store.tls.get(), null);
    const first = await store.tls.saveIfAbsent({ cert: 'CERT-1', key: 'KEY-1', created_at: '2026-01-01T00:00:00.000Z' });
    const second = await store.tls.saveIfAbsent({ cert: 'CERT-2', key: 'KEY-2', created_at: '2026-01-02T00:00:00.000Z' });
    assert.deepEqual(second, first);
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.equal((await again.tls.get())?.cert, 'CERT-1');
  });

  test(`${backend.name}: purge removes messages created before a time`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const old = batch(a.id, ['old@rcpt.test'], '2026-01-01T10:00:00.000Z');
    await store.messages.accept(old);
    await store.queue.complete(old.jobs[0]!.id, { updates: [{ id: old.messages[0]!.id, status: 'sent', sent_at: '2026-01-01T10:00:01.000Z' }], events: [], suppressions: [] });
    await store.messages.accept(batch(a.id, ['new@rcpt.test'], '2026-02-01T10:00:00.000Z'));
    assert.equal(await store.messages.purge('2026-01-15T00:00:00.000Z'), 1);
    assert.deepEqual((await store.messages.list(a.id, { limit: 10, offset: 0 })).data.map((m) => m.to), ['new@rcpt.test']);
    assert.equal(await store.messages.get(a.id, old.messages[0]!.id), null);
  });

  test(`${backend.name}: webhooks: endpoints, fan-out to subscribers, leased jobs, the delivery log`, async (t) => {
    const { b, store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const all = await store.endpoints.create(endpoint(a.id, ['message.*']));
    const bounces = await store.endpoints.create(endpoint(a.id, ['message.bounced']));
    const late = await store.endpoints.create(endpoint(a.id, ['message.*'], '2026-01-01T11:00:00.000Z'));
    const off = await store.endpoints.create(endpoint(a.id, ['message.*']));
    const elsewhere = await store.endpoints.create(endpoint(other.id, ['message.*']));
    assert.equal(all.failing_since, null);
    assert.deepEqual((await store.endpoints.listByWorkspace(a.id)).map((e) => e.id), [all.id, bounces.id, late.id, off.id]);
    assert.equal(await store.endpoints.get(other.id, all.id), null, 'another workspace cannot see it');
    const disabled = await store.endpoints.update(a.id, off.id, { status: 'disabled', disabled_reason: 'by hand' });
    assert.deepEqual([disabled?.status, disabled?.disabled_reason], ['disabled', 'by hand']);
    assert.equal(await store.endpoints.update(other.id, off.id, { status: 'enabled', disabled_reason: null }), null);

    // Two events in the outbox (written with a job outcome, as delivery does).
    const send = batch(a.id, ['jane@rcpt.test', 'gone@rcpt.test'], '2026-01-01T10:00:00.000Z');
    await store.messages.accept(send);
    const [jane, gone] = send.messages as [Message, Message];
    const at = '2026-01-01T10:00:05.000Z';
    const sentEv = { id: randomUUID(), workspace_id: a.id, event: 'message.sent' as const, message_id: jane.id, payload: { message_id: jane.id, from: 'hello@acme.test', subject: 'Hi' }, created_at: at };
    const bouncedEv = { id: randomUUID(), workspace_id: a.id, event: 'message.bounced' as const, message_id: gone.id, payload: { message_id: gone.id, from: 'hello@acme.test', subject: 'Hi', error: '550' }, created_at: at };
    await store.queue.complete(send.jobs[0]!.id, { updates: [], events: [sentEv, bouncedEv], suppressions: [] });

    // Fan-out: all gets both, bounces the bounce; not the endpoint added after, the disabled one or another workspace's.
    assert.deepEqual(await store.webhooks.fanOut('2026-01-01T10:00:06.000Z', 1), { events: 1, jobs: 1 });
    assert.deepEqual(await store.webhooks.fanOut('2026-01-01T10:00:06.000Z', 100), { events: 1, jobs: 2 });
    assert.deepEqual(await store.webhooks.fanOut('2026-01-01T10:00:06.000Z', 100), { events: 0, jobs: 0 });
    assert.deepEqual(await store.outbox.pending(10), []);
    assert.equal(await store.webhooks.depth(), 3);

    const now = '2026-01-01T10:00:07.000Z';
    const claimed = await store.webhooks.claim('w1', now, 60_000, 10);
    assert.deepEqual(claimed.map((c) => `${c.endpoint.id === all.id ? 'all' : 'bounces'}:${c.job.event}`).sort(), ['all:message.bounced', 'all:message.sent', 'bounces:message.bounced']);
    const c0 = claimed.find((c) => c.endpoint.id === all.id && c.job.event === 'message.sent')!;
    assert.deepEqual([c0.job.message_id, c0.job.payload, c0.job.attempts, c0.job.event_id], [jane.id, sentEv.payload, 0, sentEv.id]);
    assert.equal(c0.endpoint.secret, all.secret);
    assert.deepEqual(await store.webhooks.claim('w2', now, 60_000, 10), [], 'leased');

    // Delivered, failed and rescheduled, failed for good: one call.
    const c1 = claimed.find((c) => c.endpoint.id === all.id && c.job.event === 'message.bounced')!;
    const c2 = claimed.find((c) => c.endpoint.id === bounces.id)!;
    await store.webhooks.record([
      { attempt: attemptOf(all, c0.job, true, now), job: { id: c0.job.id, state: 'delivered', attempts: 1, next_attempt_at: now } },
      { attempt: attemptOf(all, c1.job, false, '2026-01-01T10:00:08.000Z'), job: { id: c1.job.id, state: 'pending', attempts: 1, next_attempt_at: '2026-01-01T10:05:00.000Z' } },
      { attempt: attemptOf(bounces, c2.job, false, now), job: { id: c2.job.id, state: 'failed', attempts: 1, next_attempt_at: now }, disable: 'answered 410' },
    ]);
    assert.equal(await store.webhooks.depth(), 1);
    assert.equal((await store.endpoints.get(a.id, all.id))?.failing_since, '2026-01-01T10:00:08.000Z', 'failing since its last failure run began');
    assert.deepEqual([(await store.endpoints.get(a.id, bounces.id))?.status, (await store.endpoints.get(a.id, bounces.id))?.disabled_reason], ['disabled', 'answered 410']);
    assert.deepEqual(await store.webhooks.claim('w1', '2026-01-01T10:04:59.000Z', 60_000, 10), []);
    const retried = await store.webhooks.claim('w1', '2026-01-01T10:05:00.000Z', 60_000, 10);
    assert.deepEqual(retried.map((c) => [c.job.id, c.job.attempts]), [[c1.job.id, 1]]);

    // The log: newest first, filters, one row by id, per workspace.
    const log = await store.webhooks.attempts(a.id, { limit: 10 });
    assert.equal(log.length, 3);
    assert.deepEqual((await store.webhooks.attempts(a.id, { failed: true, limit: 10 })).map((x) => x.ok), [false, false]);
    assert.deepEqual((await store.webhooks.attempts(a.id, { endpoint_id: bounces.id, limit: 10 })).map((x) => x.endpoint_id), [bounces.id]);
    assert.deepEqual((await store.webhooks.attempts(a.id, { since: '2026-01-01T10:00:08.000Z', limit: 10 })).map((x) => x.job_id), [c1.job.id]);
    assert.deepEqual(await store.webhooks.attempts(other.id, { limit: 10 }), []);
    const one = log.find((x) => x.job_id === c0.job.id)!;
    assert.deepEqual(await store.webhooks.attempt(a.id, one.id), one);
    assert.equal(await store.webhooks.attempt(other.id, one.id), null);
    assert.equal(one.payload.message_id, jane.id);

    // A test attempt (no job), a success clears failing_since; enable clears the reason.
    await store.webhooks.record([{ attempt: attemptOf(all, null, true, '2026-01-01T10:06:00.000Z') }]);
    assert.equal((await store.endpoints.get(a.id, all.id))?.failing_since, null);
    const enabled = await store.endpoints.update(a.id, bounces.id, { status: 'enabled', disabled_reason: null });
    assert.deepEqual([enabled?.status, enabled?.disabled_reason], ['enabled', null]);
    const rotated = await store.endpoints.update(a.id, all.id, { secret: 'whsec_new', secret_rotated_at: '2026-01-01T10:07:00.000Z' });
    assert.deepEqual([rotated?.secret, rotated?.secret_rotated_at, rotated?.url], ['whsec_new', '2026-01-01T10:07:00.000Z', all.url]);

    // Kept across a reopen: endpoints, the pending job, the log, the dispatch marks.
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.equal((await again.endpoints.listByWorkspace(a.id)).length, 4);
    assert.equal(await again.webhooks.depth(), 1);
    assert.equal((await again.webhooks.attempts(a.id, { limit: 10 })).length, 4);
    assert.deepEqual(await again.outbox.pending(10), []);
    assert.deepEqual(await again.webhooks.fanOut('2026-01-01T10:08:00.000Z', 100), { events: 0, jobs: 0 });

    // Removing an endpoint drops its pending jobs, not its log; purge drops old log rows.
    assert.equal(await again.endpoints.remove(a.id, all.id), true);
    assert.equal(await again.endpoints.remove(a.id, all.id), false);
    assert.equal(await again.webhooks.depth(), 0);
    assert.equal((await again.webhooks.attempts(a.id, { limit: 10 })).length, 4);
    assert.equal(await again.webhooks.purge('2026-01-01T10:00:08.000Z'), 2);
    assert.equal((await again.webhooks.attempts(a.id, { limit: 10 })).length, 2);
    void late;
    void elsewhere;
  });

  test(`${backend.name}: concurrent sends debit the quota exactly: those that fit are kept, the rest refused whole`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const at = '2026-01-01T10:00:00.000Z';
    const windows = [
      { key: 'day:2026-01-01', window: 'day' as const, limit: 15, resets_at: '2026-01-02T00:00:00.000Z' },
      { key: 'month:2026-01', window: 'month' as const, limit: null, resets_at: '2026-02-01T00:00:00.000Z' },
    ];
    const sends = Array.from({ length: 20 }, (_, i) => ({ ...batch(a.id, [`r${i}@rcpt.test`], at), debit: { n: 1, windows } }));
    const results = await Promise.allSettled(sends.map((b) => store.messages.accept(b)));
    const kept = results.filter((r) => r.status === 'fulfilled').length;
    assert.equal(kept, 15);
    for (const r of results) if (r.status === 'rejected') assert.ok(isSvcError(r.reason) && r.reason.kind === 'quota_exceeded', String(r.reason));
    assert.deepEqual(await store.usage.get(a.id, ['day:2026-01-01', 'month:2026-01']), { 'day:2026-01-01': 15, 'month:2026-01': 15 });
    assert.equal((await store.messages.list(a.id, { limit: 100, offset: 0 })).total, 15, 'a refused send leaves no records');
    assert.equal(await store.queue.depth(), 15);
  });

  test(`${backend.name}: accept refuses a send naming a suppressed recipient, storing and counting nothing`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const at = '2026-01-01T10:00:00.000Z';
    await store.suppressions.add({ workspace_id: a.id, address: 'gone@rcpt.test', reason: 'bounce', detail: '550', created_at: at });
    const windows = [{ key: 'day:2026-01-01', window: 'day' as const, limit: null, resets_at: '2026-01-02T00:00:00.000Z' }];
    const refused = { ...batch(a.id, ['jane@rcpt.test', 'gone@rcpt.test'], at), debit: { n: 2, windows }, unsuppressed: ['jane@rcpt.test', 'gone@rcpt.test'] };
    await assert.rejects(store.messages.accept(refused), (e) => isSvcError(e) && e.kind === 'conflict' && JSON.stringify(e.details?.suppressed) === '["gone@rcpt.test"]');
    assert.equal((await store.messages.list(a.id, { limit: 10, offset: 0 })).total, 0);
    assert.deepEqual(await store.usage.get(a.id, ['day:2026-01-01']), { 'day:2026-01-01': 0 });
    assert.equal(await store.queue.depth(), 0);
    // Another workspace's list does not count; an empty list checks nothing.
    await store.messages.accept({ ...batch(other.id, ['gone@rcpt.test'], at), unsuppressed: ['gone@rcpt.test'] });
    await store.messages.accept({ ...batch(a.id, ['jane@rcpt.test'], at), debit: { n: 1, windows }, unsuppressed: ['jane@rcpt.test'] });
    await store.messages.accept({ ...batch(a.id, ['x@rcpt.test'], at), unsuppressed: [] });
    assert.equal((await store.messages.list(a.id, { limit: 10, offset: 0 })).total, 2);
  });

  test(`${backend.name}: idempotency claims: one of concurrent claims wins, a completed key replays, old ones are taken over`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const now = '2026-01-01T10:00:00.000Z';
    const day = 86_400_000;
    // Five requests with the same key at once, and five with keys of their own.
    const same = await Promise.all(Array.from({ length: 5 }, (_, i) => store.idempotency.claim(a.id, 'k', `t${i}`, now, day, 60_000)));
    assert.deepEqual(same.map((c) => c.state).sort(), ['claimed', 'running', 'running', 'running', 'running']);
    const own = await Promise.all(Array.from({ length: 5 }, (_, i) => store.idempotency.claim(a.id, `own${i}`, `o${i}`, now, day, 60_000)));
    assert.deepEqual(own.map((c) => c.state), ['claimed', 'claimed', 'claimed', 'claimed', 'claimed']);
    // Completed with a send: a replay gets the stored response.
    const winner = `t${same.findIndex((c) => c.state === 'claimed')}`;
    await store.messages.accept({ ...batch(a.id, ['x@rcpt.test'], now), idempotency: { key: 'k', token: winner, response: { status: 202, body: { id: 'm1' } } } });
    assert.deepEqual(await store.idempotency.claim(a.id, 'k', 'late', '2026-01-01T11:00:00.000Z', day, 60_000), { state: 'completed', response: { status: 202, body: { id: 'm1' } } });
    // A running claim whose request stopped beating is taken over (its time is measured with the
    // store's clock: a running time of nothing has passed); a completed one older than a day too.
    assert.deepEqual(await store.idempotency.claim(a.id, 'own0', 'again', now, day, 60_000), { state: 'running' });
    await store.idempotency.renew(a.id, 'own0', 'o0', now);
    assert.deepEqual(await store.idempotency.claim(a.id, 'own0', 'again', '2026-01-01T10:00:00.001Z', day, 0), { state: 'claimed' });
    assert.deepEqual(await store.idempotency.claim(a.id, 'k', 'next-day', '2026-01-02T10:00:01.000Z', day, 60_000), { state: 'claimed' });
    // Released: free again at once.
    await store.idempotency.release(a.id, 'own1', 'o1');
    assert.deepEqual(await store.idempotency.claim(a.id, 'own1', 'o1b', now, day, 60_000), { state: 'claimed' });
    // The request's fingerprint is kept with the claim, running and completed.
    assert.deepEqual(await store.idempotency.claim(a.id, 'fp', 'f1', now, day, 60_000, 'hash-a'), { state: 'claimed' });
    assert.deepEqual(await store.idempotency.claim(a.id, 'fp', 'f2', now, day, 60_000, 'hash-b'), { state: 'running', fingerprint: 'hash-a' });
    await store.messages.accept({ ...batch(a.id, ['y@rcpt.test'], now), idempotency: { key: 'fp', token: 'f1', response: { status: 202, body: { id: 'm2' } }, fingerprint: 'hash-a' } });
    assert.deepEqual(await store.idempotency.claim(a.id, 'fp', 'f3', now, day, 60_000, 'hash-b'), { state: 'completed', response: { status: 202, body: { id: 'm2' } }, fingerprint: 'hash-a' });
  });

  test(`${backend.name}: what was written is there after a reopen`, async (t) => {
    const { b, store } = await fresh(t);
    const a = await store.workspaces.create(ws('acme'));
    const k = await store.keys.create(key(a.id));
    await store.keys.revoke(a.id, k.id, '2026-01-02T00:00:00.000Z');
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.deepEqual(await again.workspaces.list(), [a]);
    assert.equal((await again.keys.findByHash(k.hash))?.key.revoked_at, '2026-01-02T00:00:00.000Z');
    await again.health();
    // The send pipeline's records too: a queued job, a message, a suppression.
    const sent = batch(a.id, ['keep@rcpt.test'], '2026-01-05T00:00:00.000Z');
    await again.messages.accept(sent);
    await again.suppressions.add({ workspace_id: a.id, address: 's@y.test', reason: 'manual', detail: null, created_at: '2026-01-05T00:00:00.000Z' });
    await again.close();
    const third = await backend.open(b);
    t.after(() => third.close());
    assert.equal((await third.messages.get(a.id, sent.messages[0]!.id))?.to, 'keep@rcpt.test');
    assert.equal(await third.queue.depth(), 1);
    assert.deepEqual((await third.queue.claim('w', '2026-01-05T00:00:01.000Z', 1000, 5)).map((j) => j.id), [sent.jobs[0]!.id]);
    // What delivery needs of a queued send: its content, whole (the file store reads it back from disk).
    assert.deepEqual(await third.messages.content(sent.content.id), sent.content);
    assert.equal((await third.suppressions.list(a.id)).length, 1);
  });
}
