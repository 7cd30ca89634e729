// Store conformance: the team inbox. Received items with what they change (a reply counted, a
// permanent bounce report after `sent`, suppressions, webhook events), Sent copies read from the
// sends, threads across both folders, storage use, retention, workspaces kept apart, and a reopen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { STORAGE_MIN_CHARGE, type InboxItem, type InboundDelivery } from '../../../../src/model/inbox.js';
import type { OutboxEvent } from '../../../../src/model/event.js';
import { type Backend, fresh, sentToJaneAndBob } from './fixtures.js';

const item = (workspace_id: string, thread_id: string, over: Partial<InboxItem> = {}): InboxItem => ({
  id: randomUUID(),
  workspace_id,
  folder: 'inbox',
  kind: 'mail',
  thread_id,
  from: 'jane@rcpt.test',
  to: ['hello@acme.test'],
  cc: [],
  subject: 'Re: Hi',
  message_id: `${randomUUID()}@rcpt.test`,
  size: 1200,
  message_ref: null,
  note: null,
  created_at: '2026-01-02T10:00:00.000Z',
  in_reply_to: null,
  references: [],
  headers: 'From: jane@rcpt.test\r\nSubject: Re: Hi',
  text: 'Thanks!',
  html: '<p>Thanks!<script>x()</script></p>',
  envelope: { mail_from: 'jane@rcpt.test', rcpt_to: ['hello@acme.test'], remote_ip: '127.0.0.1' },
  auth: {
    verdict: 'pass',
    spf: 'pass',
    dkim: 'none',
    dmarc: 'none',
    arc: 'none',
    policy: null,
    from_domain: 'rcpt.test',
    summary: 'SPF passes for rcpt.test, aligned with rcpt.test',
  },
  // On the way in the message is the delivery's, once (InboundDelivery.raw); a read gives it back.
  raw: null,
  ...over,
});
const RAW = Buffer.from('Subject: Re: Hi\r\n\r\nThanks!\r\n');
const asRead = (i: InboxItem): InboxItem => ({ ...i, raw: RAW.toString('base64') });
const nothing = (items: InboxItem[]): InboundDelivery => ({ raw: RAW, items, updates: [], outbox: [], events: [], suppressions: [] });

export function inboxConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: inbox: Sent copies from sends; a reply threaded and counted; a late bounce once; storage; isolation; retention; reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const { a, other, send, jane, bob } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');

    // The send is its own Sent copy, in a thread of its own.
    const sent = await store.inbox.list(a.id, { folder: 'sent', limit: 10, offset: 0 });
    assert.equal(sent.total, 1);
    assert.equal(sent.data[0]!.id, send.content.id);
    assert.equal(sent.data[0]!.kind, 'sent');
    assert.equal(sent.data[0]!.thread_id, send.content.id);
    const copy = await store.inbox.get(a.id, send.content.id);
    assert.equal(copy?.text, send.content.text);
    assert.match(copy!.headers, new RegExp(`Message-ID: <${send.content.message_id}>`));
    assert.deepEqual(
      (await store.messages.byHeaderId(a.id, send.content.message_id)).map((m) => m.id),
      [jane.id, bob.id],
    );
    assert.deepEqual(await store.messages.byHeaderId(other.id, send.content.message_id), []);

    // Jane replies: threaded with the Sent copy, counted on her record, a reply event.
    const thread = await store.inbox.threadOf(a.id, ['unknown@x', send.content.message_id]);
    assert.equal(thread, send.content.id);
    const reply = item(a.id, thread!, { kind: 'reply', message_ref: jane.id, in_reply_to: send.content.message_id });
    await store.inbox.receive({
      ...nothing([reply]),
      events: [
        {
          id: randomUUID(),
          workspace_id: a.id,
          message_id: jane.id,
          kind: 'reply',
          prefetch: false,
          source: 'human',
          reason: 'In-Reply-To',
          url: null,
          ip: null,
          user_agent: null,
          created_at: reply.created_at,
        },
      ],
    });
    const j1 = (await store.messages.get(a.id, jane.id))!;
    assert.equal(j1.reply_count, 1);
    assert.equal(j1.replied_at, reply.created_at);
    assert.equal(j1.status, 'sent');
    assert.deepEqual(
      (await store.tracking.events(a.id, jane.id)).map((e) => e.kind),
      ['reply'],
    );
    assert.deepEqual(await store.inbox.get(a.id, reply.id), asRead(reply));
    assert.deepEqual(
      (await store.inbox.about(a.id, jane.id)).map((s) => s.id),
      [reply.id],
    );

    // A permanent bounce report for Bob after `sent`: bounced, suppressed, message.bounced once.
    const bounce = (): InboundDelivery => {
      const report = item(a.id, randomUUID(), {
        kind: 'bounce',
        message_ref: bob.id,
        from: 'mailer-daemon@rcpt.test',
        subject: 'Undelivered',
        created_at: '2026-01-02T11:00:00.000Z',
      });
      const event: OutboxEvent = {
        id: randomUUID(),
        workspace_id: a.id,
        event: 'message.bounced',
        message_id: bob.id,
        payload: { message_id: bob.id },
        created_at: report.created_at,
      };
      return {
        raw: RAW,
        items: [report],
        updates: [{ id: bob.id, status: 'bounced', error: '5.1.1 user unknown', bounced_at: report.created_at }],
        outbox: [event],
        events: [],
        suppressions: [
          {
            workspace_id: a.id,
            address: 'bob@rcpt.test',
            reason: 'bounce',
            detail: '5.1.1 user unknown',
            created_at: report.created_at,
            message_id: bob.id,
            class: 'bad-mailbox',
          },
        ],
      };
    };
    const before = (await store.outbox.pending(100)).length;
    await store.inbox.receive(bounce());
    await store.inbox.receive(bounce());
    const b1 = (await store.messages.get(a.id, bob.id))!;
    assert.equal(b1.status, 'bounced');
    assert.equal(b1.error, '5.1.1 user unknown');
    assert.equal(b1.bounced_at, '2026-01-02T11:00:00.000Z');
    assert.equal((await store.outbox.pending(100)).filter((e) => e.event === 'message.bounced').length - before, 1);
    assert.deepEqual(
      (await store.suppressions.find(a.id, ['bob@rcpt.test'])).map((s) => s.reason),
      ['bounce'],
    );

    // Lists newest first; threads across folders; storage counts each received item (1,200 bytes here) as at least 4 KB.
    const inbox = await store.inbox.list(a.id, { folder: 'inbox', limit: 10, offset: 0 });
    assert.equal(inbox.total, 3);
    assert.deepEqual(
      inbox.data.map((s) => s.kind),
      ['bounce', 'bounce', 'reply'],
    );
    assert.equal(inbox.data[0]!.folder, 'inbox');
    assert.equal((await store.inbox.list(a.id, { folder: 'inbox', limit: 1, offset: 1 })).data.length, 1);
    assert.deepEqual(
      (await store.inbox.list(a.id, { folder: 'inbox', thread_id: thread!, limit: 10, offset: 0 })).data.map((s) => s.id),
      [reply.id],
    );
    const threads = await store.inbox.threads(a.id, { limit: 10, offset: 0 });
    assert.equal(threads.total, 3);
    const conversation = threads.data.find((x) => x.thread_id === thread)!;
    assert.deepEqual(
      { count: conversation.count, subject: conversation.subject, last_kind: conversation.last_kind },
      { count: 2, subject: 'Hi', last_kind: 'reply' },
    );
    assert.equal(await store.inbox.usage(a.id), 3 * STORAGE_MIN_CHARGE);
    // By kind: the bounces to triage, the replies; a Sent copy is of kind sent.
    assert.deepEqual(
      (await store.inbox.list(a.id, { folder: 'inbox', kind: 'bounce', limit: 10, offset: 0 })).data.map((s) => s.kind),
      ['bounce', 'bounce'],
    );
    assert.deepEqual(await store.inbox.list(a.id, { folder: 'inbox', kind: 'reply', limit: 10, offset: 0 }), {
      data: [(await store.inbox.list(a.id, { folder: 'inbox', thread_id: thread!, limit: 1, offset: 0 })).data[0]!],
      total: 1,
    });
    assert.equal((await store.inbox.list(a.id, { folder: 'inbox', kind: 'complaint', limit: 10, offset: 0 })).total, 0);
    assert.equal((await store.inbox.list(a.id, { folder: 'sent', kind: 'sent', limit: 10, offset: 0 })).total, 1);
    assert.equal((await store.inbox.list(a.id, { folder: 'sent', kind: 'reply', limit: 10, offset: 0 })).total, 0);

    // Another workspace sees none of it.
    assert.equal(await store.inbox.get(other.id, reply.id), null);
    assert.equal(await store.inbox.get(other.id, send.content.id), null);
    assert.equal((await store.inbox.list(other.id, { folder: 'inbox', limit: 10, offset: 0 })).total, 0);
    assert.equal(await store.inbox.threadOf(other.id, [send.content.message_id]), null);
    assert.equal(await store.inbox.usage(other.id), 0);

    // After a reopen: the same items, counts and storage.
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.deepEqual(await again.inbox.get(a.id, reply.id), asRead(reply));
    assert.equal((await again.inbox.list(a.id, { folder: 'inbox', limit: 10, offset: 0 })).total, 3);
    assert.equal((await again.inbox.list(a.id, { folder: 'sent', limit: 10, offset: 0 })).total, 1);
    assert.equal((await again.messages.get(a.id, jane.id))!.reply_count, 1);
    assert.equal((await again.messages.get(a.id, bob.id))!.status, 'bounced');
    assert.equal((await again.outbox.pending(100)).filter((e) => e.event === 'message.bounced').length - before, 1);
    assert.equal(await again.inbox.usage(a.id), 3 * STORAGE_MIN_CHARGE);

    // Retention removes received items older than the cutoff (by day on the file store).
    const later = item(a.id, randomUUID(), { created_at: '2026-01-09T10:00:00.000Z' });
    await again.inbox.receive(nothing([later]));
    assert.equal(await again.inbox.purge('2026-01-05T00:00:00.000Z'), 3);
    assert.deepEqual(
      (await again.inbox.list(a.id, { folder: 'inbox', limit: 10, offset: 0 })).data.map((s) => s.id),
      [later.id],
    );
    assert.equal(await again.inbox.usage(a.id), STORAGE_MIN_CHARGE);
    assert.deepEqual(await again.inbox.about(a.id, jane.id), []);

    // One message for two workspaces: an item in each, the message kept once and read back by both.
    const mine = item(a.id, randomUUID(), { created_at: '2026-01-09T11:00:00.000Z' });
    const theirs = item(other.id, randomUUID(), { created_at: '2026-01-09T11:00:00.000Z' });
    await again.inbox.receive(nothing([mine, theirs]));
    assert.deepEqual(await again.inbox.get(a.id, mine.id), asRead(mine));
    assert.deepEqual(await again.inbox.get(other.id, theirs.id), asRead(theirs));
    assert.equal(await again.inbox.get(other.id, mine.id), null);
    assert.equal(await again.inbox.usage(other.id), STORAGE_MIN_CHARGE);

    // Deleting: only a received item of the workspace's own; its bytes stop counting; it stays gone after a reopen.
    assert.equal(await again.inbox.remove(other.id, mine.id), false);
    assert.equal(await again.inbox.remove(a.id, send.content.id), false);
    // Two deletes at once: one of them deletes it.
    assert.deepEqual((await Promise.all([again.inbox.remove(a.id, mine.id), again.inbox.remove(a.id, mine.id)])).sort(), [false, true]);
    assert.equal(await again.inbox.remove(a.id, mine.id), false);
    assert.equal(await again.inbox.get(a.id, mine.id), null);
    assert.deepEqual(
      (await again.inbox.list(a.id, { folder: 'inbox', limit: 10, offset: 0 })).data.map((s) => s.id),
      [later.id],
    );
    assert.equal(await again.inbox.usage(a.id), STORAGE_MIN_CHARGE);
    assert.deepEqual(await again.inbox.get(other.id, theirs.id), asRead(theirs));
    await again.close();
    const third = await backend.open(b);
    t.after(() => third.close());
    assert.equal(await third.inbox.get(a.id, mine.id), null);
    assert.equal(await third.inbox.usage(a.id), STORAGE_MIN_CHARGE);
    assert.equal((await third.inbox.list(a.id, { folder: 'inbox', limit: 10, offset: 0 })).total, 1);
    assert.equal(await third.inbox.usage(other.id), STORAGE_MIN_CHARGE);
  });

  test(`${backend.name}: inbox: short ids: items of both folders and threads by a prefix; deleted ones and other workspaces' never; the same after a reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const { a, other, send } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');
    const uuid = (head: string, n: number) => `${head}-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const thread = uuid('7777aaaa', 9);
    const one = item(a.id, thread, { id: uuid('abcd1111', 1) });
    const two = item(a.id, thread, { id: uuid('abcd2222', 2), created_at: '2026-01-02T11:00:00.000Z' });
    const theirs = item(other.id, uuid('7777bbbb', 8), { id: uuid('abcd3333', 3) });
    await store.inbox.receive(nothing([one, two, theirs]));
    const sorted = async (p: Promise<string[]>) => (await p).sort();
    const check = async (s: typeof store, deleted: boolean) => {
      assert.deepEqual(await sorted(s.inbox.idsWithPrefix(a.id, 'abcd', 10, false)), deleted ? [one.id] : [one.id, two.id]);
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, 'abcd1', 10, false), [one.id]);
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, 'abcd1111-0000', 10, false), [one.id], 'past the first 8 digits');
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, 'abcd1111-9', 10, false), []);
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, one.id, 10, false), [one.id]);
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, send.content.id.slice(0, 8), 10, false), [send.content.id], 'a Sent copy');
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, '7777', 10, true), [thread]);
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, send.content.id.slice(0, 6), 10, true), [send.content.id], "a send's own thread");
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, '7777', 10, false), [], 'thread ids are not item ids');
      assert.deepEqual(await s.inbox.idsWithPrefix(other.id, 'abcd', 10, false), [theirs.id]);
      assert.deepEqual(await s.inbox.idsWithPrefix(other.id, 'abcd1', 10, false), []);
      assert.deepEqual(await s.inbox.idsWithPrefix(a.id, 'zzzz', 10, false), []);
      assert.equal((await s.inbox.idsWithPrefix(a.id, '', 1, false)).length, 1, 'the limit holds');
    };
    await check(store, false);
    assert.equal(await store.inbox.remove(a.id, two.id), true);
    await check(store, true);
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    await check(again, true);
  });

  test(`${backend.name}: inbox: a not-spam report lifts a complaint suppression, never one made for another reason; in the same call as its item`, async (t) => {
    const { store } = await fresh(backend, t);
    const { a } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');
    const at = '2026-01-02T10:00:00.000Z';
    await store.suppressions.add({
      workspace_id: a.id,
      address: 'jane@rcpt.test',
      reason: 'complaint',
      detail: 'abuse report',
      created_at: at,
    });
    await store.suppressions.add({ workspace_id: a.id, address: 'bob@rcpt.test', reason: 'bounce', detail: '5.1.1', created_at: at });
    const report = item(a.id, randomUUID(), { kind: 'complaint', subject: 'not spam' });
    await store.inbox.receive({
      ...nothing([report]),
      lifted: [
        { workspace_id: a.id, address: 'jane@rcpt.test' },
        { workspace_id: a.id, address: 'bob@rcpt.test' },
      ],
    });
    assert.deepEqual(
      (await store.suppressions.list(a.id)).map((x) => [x.address, x.reason]),
      [['bob@rcpt.test', 'bounce']],
    );
    assert.deepEqual((await store.inbox.get(a.id, report.id))?.auth, report.auth);
  });

  test(`${backend.name}: inbox: compaction gives back deleted items' space; what is left reads the same, with what a deleted reply changed, before and after a reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const { a, other, send, jane } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');
    // Messages of 48 KB each (their lines about 64 KB in base64), all on one day.
    const big = (n: number) => Buffer.from(`Subject: ${n}\r\n\r\n${'x'.repeat(48 * 1024)}\r\n`);
    const at = (n: number) => `2026-01-02T10:${String(n).padStart(2, '0')}:00.000Z`;
    const kept: InboxItem[] = [];
    const gone: InboxItem[] = [];
    for (let n = 0; n < 10; n++) {
      const i = item(a.id, randomUUID(), { created_at: at(n), size: 48 * 1024 + 20 });
      await store.inbox.receive({ ...nothing([i]), raw: big(n) });
      (n % 4 === 0 ? kept : gone).push({ ...i, raw: big(n).toString('base64') });
    }
    // A reply (it counts on Jane's record) that is then deleted: the count stays.
    const reply = item(a.id, send.content.id, { kind: 'reply', message_ref: jane.id, created_at: at(20) });
    await store.inbox.receive({
      ...nothing([reply]),
      events: [
        {
          id: randomUUID(),
          workspace_id: a.id,
          message_id: jane.id,
          kind: 'reply',
          prefetch: false,
          source: 'human',
          reason: 'In-Reply-To',
          url: null,
          ip: null,
          user_agent: null,
          created_at: reply.created_at,
        },
      ],
    });
    // One message for two workspaces: a's item deleted, the other's kept with the message.
    const mine = item(a.id, randomUUID(), { created_at: at(30) });
    const theirs = item(other.id, randomUUID(), { created_at: at(30) });
    await store.inbox.receive({ ...nothing([mine, theirs]), raw: big(30) });
    for (const i of [...gone, reply, mine]) assert.equal(await store.inbox.remove(i.workspace_id, i.id), true);

    const freed = await store.inbox.compact();
    assert.equal(freed, 0, 'the database reuses the pages of deleted rows itself');
    assert.equal(await store.inbox.compact(), 0, 'nothing left to compact');
    const check = async (s: typeof store) => {
      for (const i of kept) assert.deepEqual(await s.inbox.get(a.id, i.id), i);
      for (const i of [...gone, reply, mine]) assert.equal(await s.inbox.get(i.workspace_id, i.id), null);
      assert.deepEqual(await s.inbox.get(other.id, theirs.id), { ...theirs, raw: big(30).toString('base64') });
      assert.deepEqual(
        (await s.inbox.list(a.id, { folder: 'inbox', limit: 20, offset: 0 })).data.map((x) => x.id),
        kept.map((i) => i.id).reverse(),
      );
      assert.equal((await s.inbox.threads(a.id, { limit: 20, offset: 0 })).total, kept.length + 1);
      assert.equal((await s.messages.get(a.id, jane.id))!.reply_count, 1);
      assert.deepEqual(
        (await s.tracking.events(a.id, jane.id)).map((e) => e.kind),
        ['reply'],
      );
      assert.equal(
        await s.inbox.usage(a.id),
        kept.reduce((n, i) => n + i.size, 0),
      );
    };
    await check(store);
    // Receiving and deleting go on after it.
    const after = item(a.id, randomUUID(), { created_at: at(40) });
    await store.inbox.receive(nothing([after]));
    assert.equal(await store.inbox.remove(a.id, kept[0]!.id), true);
    assert.equal(await store.inbox.remove(a.id, after.id), true);
    kept.shift();
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    await check(again);
    assert.equal(await again.inbox.get(a.id, after.id), null);
  });

  test(`${backend.name}: rule, a thread's view: threads marked read and archived by the team; new mail makes them unread and brings them back; views; search; isolation; reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const { a, other, send } = await sentToJaneAndBob(store, '2026-01-01T10:00:05.000Z');
    const ids = async (view: 'all' | 'inbox' | 'archived', search?: string, s = store) =>
      (await s.inbox.threads(a.id, { limit: 10, offset: 0, view, ...(search ? { search } : {}) })).data.map((x) => x.thread_id);
    const t1 = send.content.id;
    // Only a Sent copy: a thread, but nothing in the inbox.
    assert.deepEqual(await ids('all'), [t1]);
    assert.deepEqual(await ids('inbox'), []);
    const [sentOnly] = (await store.inbox.threads(a.id, { limit: 10, offset: 0 })).data;
    assert.deepEqual(
      { received_at: sentOnly!.received_at, unread: sentOnly!.unread, archived: sentOnly!.archived },
      { received_at: null, unread: false, archived: false },
    );

    await store.inbox.receive(nothing([item(a.id, t1, { kind: 'reply', created_at: '2026-01-02T10:00:00.000Z' })]));
    const t2 = randomUUID();
    await store.inbox.receive(
      nothing([
        item(a.id, t2, {
          from: 'alice@other.test',
          to: ['billing@acme.test'],
          subject: 'Invoice question',
          created_at: '2026-01-02T12:00:00.000Z',
        }),
      ]),
    );
    assert.deepEqual(await ids('inbox'), [t2, t1]);
    const listed = await store.inbox.threads(a.id, { limit: 10, offset: 0, view: 'inbox' });
    assert.equal(listed.total, 2);
    assert.deepEqual(
      listed.data.map((x) => [x.unread, x.received_at]),
      [
        [true, '2026-01-02T12:00:00.000Z'],
        [true, '2026-01-02T10:00:00.000Z'],
      ],
    );
    assert.deepEqual(await store.inbox.threads(a.id, { limit: 1, offset: 1, view: 'inbox' }), { data: [listed.data[1]!], total: 2 });

    // Read and archived, for everyone; another workspace and an unknown thread change nothing.
    assert.equal(await store.inbox.markThread(a.id, t1, { read_at: '2026-01-03T00:00:00.000Z' }), true);
    assert.equal(await store.inbox.markThread(a.id, t2, { archived_at: '2026-01-03T00:00:00.000Z' }), true);
    assert.equal(await store.inbox.markThread(other.id, t1, { archived_at: '2026-01-03T00:00:00.000Z' }), false);
    assert.equal(await store.inbox.markThread(a.id, 'no-such-thread', { read_at: '2026-01-03T00:00:00.000Z' }), false);
    assert.deepEqual(await store.inbox.threadState(a.id, t1), { read_at: '2026-01-03T00:00:00.000Z', archived_at: null });
    assert.deepEqual(await store.inbox.threadState(other.id, t1), { read_at: null, archived_at: null });
    assert.deepEqual(await ids('inbox'), [t1]);
    assert.deepEqual(await ids('archived'), [t2]);
    const [read] = (await store.inbox.threads(a.id, { limit: 10, offset: 0, view: 'inbox' })).data;
    assert.deepEqual(
      { unread: read!.unread, read_at: read!.read_at, archived: read!.archived },
      { unread: false, read_at: '2026-01-03T00:00:00.000Z', archived: false },
    );
    // A field left out is kept.
    await store.inbox.markThread(a.id, t1, { archived_at: null });
    assert.deepEqual(await store.inbox.threadState(a.id, t1), { read_at: '2026-01-03T00:00:00.000Z', archived_at: null });

    // Search: sender, recipient, subject, any case, in a view; the search is text, not a pattern.
    assert.deepEqual(await ids('all', 'INVOICE'), [t2]);
    assert.deepEqual(await ids('all', 'jane@RCPT'), [t1]);
    assert.deepEqual(await ids('all', 'billing@'), [t2]);
    assert.deepEqual(await ids('inbox', 'invoice'), []);
    assert.deepEqual(await ids('archived', 'alice'), [t2]);
    assert.deepEqual(await ids('all', '%'), []);
    assert.equal((await store.inbox.threads(a.id, { limit: 10, offset: 0, search: 'acme.test' })).total, 2);
    assert.equal((await store.inbox.threads(other.id, { limit: 10, offset: 0, search: 'invoice' })).total, 0);

    // New mail in the archived thread brings it back, unread; a thread marked unread is unread again.
    await store.inbox.receive(
      nothing([item(a.id, t2, { from: 'alice@other.test', subject: 'Re: Invoice question', created_at: '2026-01-04T09:00:00.000Z' })]),
    );
    assert.deepEqual(await ids('inbox'), [t2, t1]);
    assert.deepEqual(await ids('archived'), []);
    await store.inbox.markThread(a.id, t1, { read_at: null });
    const back = (await store.inbox.threads(a.id, { limit: 10, offset: 0, view: 'inbox' })).data;
    assert.deepEqual(
      back.map((x) => [x.unread, x.archived]),
      [
        [true, false],
        [true, false],
      ],
    );
    assert.equal(back[0]!.archived_at, '2026-01-03T00:00:00.000Z');

    // After a reopen: the same marks.
    await store.inbox.markThread(a.id, t1, { read_at: '2026-01-05T00:00:00.000Z', archived_at: '2026-01-05T00:00:00.000Z' });
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.deepEqual(await again.inbox.threadState(a.id, t1), {
      read_at: '2026-01-05T00:00:00.000Z',
      archived_at: '2026-01-05T00:00:00.000Z',
    });
    assert.deepEqual(await ids('archived', undefined, again), [t1]);
    assert.deepEqual(await ids('inbox', undefined, again), [t2]);
  });
}
