// Store conformance: deleting a workspace. The mark ends it at once (keys, members, name, every
// look-up); one holder at a time works on its purge; batches remove every record of it and then the
// workspace, with `done` once; another workspace's data, even in the same lines (mail received for
// both, webhook jobs fanned out for both), stays whole; the same after a reopen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../../../../src/store/types.js';
import type { Workspace } from '../../../../src/model/workspace.js';
import type { InboxItem } from '../../../../src/model/inbox.js';
import type { Message } from '../../../../src/model/message.js';
import { type Backend, fresh, ws, key, domain, address, batch, endpoint, created } from './fixtures.js';

const AT = '2026-01-02T10:00:00.000Z';
const RAW = Buffer.from('Subject: Both\r\n\r\nTo both of you\r\n');

const item = (workspace_id: string, subject: string): InboxItem => ({
  id: randomUUID(),
  workspace_id,
  folder: 'inbox',
  kind: 'mail',
  thread_id: randomUUID(),
  from: 'jane@rcpt.test',
  to: ['hello@acme.test'],
  cc: [],
  subject,
  message_id: `${randomUUID()}@rcpt.test`,
  size: RAW.length,
  message_ref: null,
  note: null,
  created_at: AT,
  in_reply_to: null,
  references: [],
  headers: `Subject: ${subject}`,
  text: subject,
  html: null,
  envelope: { mail_from: 'jane@rcpt.test', rcpt_to: ['hello@acme.test'], remote_ip: '127.0.0.1' },
  auth: {
    verdict: 'pass',
    spf: 'pass',
    dkim: 'none',
    dmarc: 'none',
    arc: 'none',
    policy: null,
    from_domain: 'rcpt.test',
    summary: 'SPF passes',
  },
  raw: null,
});

/** What a workspace holds, each kind once, its texts marked with `mark` (found in files or not). */
export interface Holdings {
  ws: Workspace;
  keyHash: string;
  messageIds: string[];
  contentId: string;
  listId: string;
  endpointId: string;
  item: InboxItem;
  /** A send still queued. */
  queuedJob: string;
}

async function hold(store: Store, w: Workspace, mark: string): Promise<Holdings> {
  const k = await store.keys.create(key(w.id));
  const d = await created(store.domains.create(domain(w.id, `${w.name}.test`), null));
  await created(store.addresses.create(address(w.id, d.id, `hello@${w.name}.test`), null));
  await store.suppressions.add({ workspace_id: w.id, address: `${mark}@rcpt.test`, reason: 'bounce', detail: mark, created_at: AT });
  const ep = await store.endpoints.create(endpoint(w.id, ['message.*']));
  const send = batch(w.id, [`${mark}-jane@rcpt.test`, `${mark}-bob@rcpt.test`], AT);
  send.content.subject = mark;
  await store.messages.accept(send);
  const sent = send.messages[0] as Message;
  const ev = {
    id: randomUUID(),
    workspace_id: w.id,
    event: 'message.sent' as const,
    message_id: sent.id,
    payload: { message_id: sent.id, from: 'hello@acme.test', subject: mark },
    created_at: '2026-01-02T10:00:05.000Z',
  };
  await store.queue.complete(send.jobs[0]!.id, { updates: [{ id: sent.id, status: 'sent' }], events: [ev], suppressions: [] });
  const l = await store.lists.create({
    id: randomUUID(),
    workspace_id: w.id,
    name: mark,
    description: '',
    from_name: '',
    from_address: '',
    reply_to: '',
    double_opt_in: false,
    created_at: AT,
    updated_at: AT,
  });
  await store.subscribers.upsert(
    {
      id: randomUUID(),
      list_id: l.id,
      workspace_id: w.id,
      email: `${mark}-sub@rcpt.test`,
      name: mark,
      status: 'active',
      unsubscribe_token: randomBytes(32).toString('base64url'),
      tags: [],
      created_at: AT,
      updated_at: AT,
    },
    { name: mark, updated_at: AT },
    null,
  );
  await store.people.add(
    w.id,
    { id: randomUUID(), email: `${mark}@people.test`, name: mark, password_hash: null, created_at: AT, last_sign_in_at: null },
    'owner',
    null,
    AT,
  );
  const queued = batch(w.id, [`${mark}-later@rcpt.test`], AT);
  await store.messages.accept(queued);
  return {
    ws: w,
    keyHash: k.hash,
    messageIds: [...send.messages, ...queued.messages].map((m) => m.id),
    contentId: send.content.id,
    listId: l.id,
    endpointId: ep.id,
    item: item(w.id, mark),
    queuedJob: queued.jobs[0]!.id,
  };
}

/** Two workspaces with one of everything; mail received for both in one delivery, webhook jobs fanned out for both at once. */
export async function twoWorkspaces(store: Store): Promise<{ gone: Holdings; kept: Holdings }> {
  const gone = await hold(store, await store.workspaces.create(ws('acme')), 'ACMEDATA');
  const kept = await hold(store, await store.workspaces.create(ws('beta')), 'BETADATA');
  await store.inbox.receive({ raw: RAW, items: [gone.item, kept.item], updates: [], outbox: [], events: [], suppressions: [] });
  await store.webhooks.fanOut('2026-01-02T10:00:06.000Z', 100);
  const both = { id: randomUUID(), email: 'both@people.test', name: null, password_hash: null, created_at: AT, last_sign_in_at: null };
  await store.people.add(gone.ws.id, both, 'member', null, AT);
  await store.people.add(kept.ws.id, both, 'member', null, AT);
  return { gone, kept };
}

/** Purges `id` in batches of `limit` until done; how many calls said done. */
export async function purgeAll(store: Store, id: string, limit: number): Promise<number> {
  let done = 0;
  for (let i = 0; i < 1000; i++) {
    const r = await store.workspaces.purge(id, limit);
    if (r.done) done++;
    if (!r.removed && !r.done) return done;
  }
  throw new Error('the purge never ended');
}

/** Nothing of `gone` can be read; everything of `kept` can. */
export async function onlyKeptRemains(store: Store, gone: Holdings, kept: Holdings): Promise<void> {
  assert.deepEqual((await store.workspaces.list()).map((w) => w.id).includes(gone.ws.id), false);
  assert.equal(await store.keys.findByHash(gone.keyHash), null);
  assert.deepEqual(await store.people.list(gone.ws.id), []);
  assert.equal(await store.people.account('ACMEDATA@people.test'), null, 'a person of no other workspace goes');
  assert.ok(await store.people.account('both@people.test'), 'a person of another workspace stays');
  assert.deepEqual(await store.domains.listByWorkspace(gone.ws.id), []);
  assert.deepEqual(await store.addresses.listByWorkspace(gone.ws.id), []);
  assert.deepEqual(await store.suppressions.list(gone.ws.id), []);
  assert.deepEqual(await store.endpoints.listByWorkspace(gone.ws.id), []);
  assert.deepEqual(await store.lists.listByWorkspace(gone.ws.id), []);
  assert.deepEqual(await store.messages.byIds(gone.messageIds), []);
  assert.equal((await store.messages.list(gone.ws.id, { limit: 10, offset: 0 })).total, 0);
  assert.equal(await store.messages.content(gone.contentId), null);
  assert.equal((await store.inbox.threads(gone.ws.id, { limit: 10, offset: 0 })).total, 0);
  assert.equal(await store.inbox.get(gone.ws.id, gone.item.id), null);
  assert.deepEqual((await store.webhooks.attempts(gone.ws.id, { limit: 10 })).length, 0);
  assert.ok(
    (await store.webhooks.claim('t', '2026-01-02T10:01:00.000Z', 60_000, 100)).every((j) => j.job.workspace_id === kept.ws.id),
    'no webhook job of the deleted workspace is handed out',
  );

  assert.ok(await store.keys.findByHash(kept.keyHash));
  assert.equal((await store.people.list(kept.ws.id)).length, 2);
  assert.equal((await store.domains.listByWorkspace(kept.ws.id)).length, 1);
  assert.equal((await store.addresses.listByWorkspace(kept.ws.id)).length, 1);
  assert.equal((await store.suppressions.list(kept.ws.id)).length, 1);
  assert.equal((await store.endpoints.listByWorkspace(kept.ws.id)).length, 1);
  assert.equal((await store.subscribers.list(kept.ws.id, kept.listId, { limit: 10, offset: 0 })).total, 1);
  assert.equal((await store.messages.byIds(kept.messageIds)).length, 3);
  assert.equal((await store.messages.list(kept.ws.id, { limit: 10, offset: 0 })).total, 3);
  const mine = await store.inbox.get(kept.ws.id, kept.item.id);
  assert.equal(mine?.subject, 'BETADATA');
  assert.equal(Buffer.from(mine!.raw!, 'base64').toString(), RAW.toString(), 'mail received for both keeps its message');
}

export function deletionConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, a workspace's purge: gone at once, one holder, purged in batches and done once, the other workspace whole, after a reopen too`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const { gone, kept } = await twoWorkspaces(store);
    const at = '2026-03-01T00:00:00.000Z';

    assert.equal(await store.workspaces.markDeleted(gone.ws.id, at, 'owner:ann@acme.test'), true);
    assert.equal(await store.workspaces.markDeleted(gone.ws.id, at, 'trial'), false, 'once');
    assert.equal(await store.workspaces.markDeleted(randomUUID(), at, 'trial'), false);
    // Gone for everyone at once; its name is free.
    assert.equal(await store.workspaces.getByName('acme'), null);
    assert.deepEqual(
      (await store.workspaces.list()).map((w) => w.name),
      ['beta'],
    );
    assert.equal(await store.keys.findByHash(gone.keyHash), null);
    assert.deepEqual(await store.people.list(gone.ws.id), []);
    assert.equal(await store.workspaces.setPlan(gone.ws.id, 'pro'), null);
    assert.deepEqual(await store.workspaces.deletions(), [{ ...gone.ws, deleted_at: at, reason: 'owner:ann@acme.test' }]);
    // Its queued mail is not handed off (the other's is); nor are its webhook deliveries.
    assert.deepEqual(
      (await store.queue.claim('w', '2026-01-02T10:01:00.000Z', 60_000, 100)).map((j) => j.id),
      [kept.queuedJob],
    );
    assert.ok((await store.webhooks.claim('w', '2026-01-02T10:01:00.000Z', 60_000, 100)).every((j) => j.job.workspace_id === kept.ws.id));

    // One holder at a time; a stale one is taken over.
    assert.equal(await store.workspaces.claimDeletion(gone.ws.id, 'one', at, 60_000), true);
    assert.equal(await store.workspaces.claimDeletion(gone.ws.id, 'two', '2026-03-01T00:00:30.000Z', 60_000), false);
    assert.equal(await store.workspaces.claimDeletion(gone.ws.id, 'one', '2026-03-01T00:00:40.000Z', 60_000), true, 'renewed');
    assert.equal(await store.workspaces.claimDeletion(gone.ws.id, 'two', '2026-03-01T00:01:10.000Z', 60_000), false, 'the renewal counts');
    assert.equal(await store.workspaces.claimDeletion(gone.ws.id, 'two', '2026-03-01T00:01:41.000Z', 60_000), true, 'stale');
    assert.equal(await store.workspaces.claimDeletion(kept.ws.id, 'two', at, 60_000), false, 'not deleted');

    const reborn = await store.workspaces.create(ws('acme'));
    assert.notEqual(reborn.id, gone.ws.id);

    assert.equal(await purgeAll(store, gone.ws.id, 3), 1, 'done once');
    assert.deepEqual(await store.workspaces.deletions(), []);
    assert.deepEqual(await store.workspaces.purge(gone.ws.id, 3), { removed: 0, done: false });
    assert.equal(await store.workspaces.claimDeletion(gone.ws.id, 'one', at, 0), false);
    await onlyKeptRemains(store, gone, kept);

    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    await onlyKeptRemains(again, gone, kept);
    assert.deepEqual(await again.workspaces.deletions(), []);
    assert.deepEqual(
      (await again.workspaces.list()).map((w) => w.name),
      ['beta', 'acme'],
    );
  });
}
