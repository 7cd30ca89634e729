// Store conformance: queue. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Message } from '../../../../src/model/message.js';
import { type Backend, fresh, ws, domain, address, batch } from './fixtures.js';

export function queueConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, lease expiry (a job leased is no one else's until its lease ends, then anyone's); queue: claim what is due, complete or reschedule, in one call`, async (t) => {
    const { store } = await fresh(backend, t);
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
    assert.deepEqual(
      claimed.map((j) => j.id),
      [b1.jobs[0]!.id],
    );
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
    assert.deepEqual(
      stolen.map((j) => j.id),
      [b1.jobs[0]!.id],
    );
    const [jane, gone, slow] = b1.messages as [Message, Message, Message];
    await store.queue.complete(b1.jobs[0]!.id, {
      updates: [
        { id: jane.id, status: 'sent', sent_at: now },
        { id: gone.id, status: 'bounced', error: '550 no', bounced_at: now },
      ],
      events: [
        {
          id: randomUUID(),
          workspace_id: a.id,
          event: 'message.sent',
          message_id: jane.id,
          payload: { message_id: jane.id },
          created_at: now,
        },
        {
          id: randomUUID(),
          workspace_id: a.id,
          event: 'message.bounced',
          message_id: gone.id,
          payload: { message_id: gone.id },
          created_at: now,
        },
      ],
      suppressions: [{ workspace_id: a.id, address: 'gone@rcpt.test', reason: 'bounce', detail: '550 no', created_at: now }],
      retry: { message_ids: [slow.id], next_attempt_at: '2026-01-01T10:30:00.000Z', last_error: '451 later' },
    });
    const byId = new Map((await store.messages.byIds(b1.messages.map((m) => m.id))).map((m) => [m.id, m]));
    assert.deepEqual([byId.get(jane.id)?.status, byId.get(jane.id)?.sent_at], ['sent', now]);
    assert.deepEqual([byId.get(gone.id)?.status, byId.get(gone.id)?.error, byId.get(gone.id)?.bounced_at], ['bounced', '550 no', now]);
    assert.equal(byId.get(slow.id)?.status, 'queued');
    assert.deepEqual(
      (await store.outbox.pending(10)).map((e) => e.event),
      ['message.sent', 'message.bounced'],
    );
    assert.deepEqual(
      (await store.suppressions.find(a.id, ['gone@rcpt.test', 'jane@rcpt.test'])).map((x) => x.address),
      ['gone@rcpt.test'],
    );
    // The rescheduled job holds only the recipient left, once due, with its lease gone.
    assert.deepEqual(await store.queue.claim('w1', '2026-01-01T10:29:00.000Z', 60_000, 10), []);
    const retried = await store.queue.claim('w1', '2026-01-01T10:30:00.000Z', 60_000, 10);
    assert.deepEqual([retried[0]?.message_ids, retried[0]?.attempts, retried[0]?.last_error], [[slow.id], 1, '451 later']);
    await store.queue.complete(retried[0]!.id, {
      updates: [{ id: slow.id, status: 'sent', sent_at: '2026-01-01T10:30:01.000Z' }],
      events: [],
      suppressions: [],
    });
    assert.equal(await store.queue.depth(), 1);
    // The content stays while the send has unfinished jobs only.
    assert.equal(await store.messages.content(b1.content.id), null);
    assert.ok(await store.messages.content(later.content.id));
  });

  test(`${backend.name}: queue: concurrent completions each take effect once, and a content goes with its last job`, async (t) => {
    const { store } = await fresh(backend, t);
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
      events: [
        {
          id: randomUUID(),
          workspace_id: a.id,
          event: 'message.bounced' as const,
          message_id: m.id,
          payload: { message_id: m.id },
          created_at: now,
        },
      ],
      // Every bounce suppresses the same address too: it must be added once, without a conflict.
      suppressions: [m.to, 'shared@rcpt.test'].map((address) => ({
        workspace_id: a.id,
        address,
        reason: 'bounce' as const,
        detail: '550 no',
        created_at: now,
      })),
    });
    const [ma, mb, mc] = multi.messages as [Message, Message, Message];
    await Promise.all([
      store.queue.complete(multi.jobs[0]!.id, { updates: [{ id: ma.id, status: 'sent', sent_at: now }], events: [], suppressions: [] }),
      store.queue.complete(multi.jobs[1]!.id, bounce(mb)),
      store.queue.complete(multi.jobs[2]!.id, {
        updates: [],
        events: [],
        suppressions: [],
        retry: { message_ids: [mc.id], next_attempt_at: '2026-01-01T11:00:00.000Z', last_error: '451 later' },
      }),
      ...singles.map((b, i) =>
        store.queue.complete(
          b.jobs[0]!.id,
          i % 2
            ? bounce(b.messages[0]!)
            : { updates: [{ id: b.messages[0]!.id, status: 'sent', sent_at: now }], events: [], suppressions: [] },
        ),
      ),
    ]);
    const all = await store.messages.byIds([...multi.messages, ...singles.flatMap((b) => b.messages)].map((m) => m.id));
    assert.deepEqual(
      all.map((m) => m.status),
      ['sent', 'bounced', 'queued', ...singles.map((_, i) => (i % 2 ? 'bounced' : 'sent'))],
    );
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

  test(`${backend.name}: queue: an outcome keeps each recipient's attempt transcript; a record keeps how it came in`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const send = batch(a.id, ['jane@rcpt.test'], '2026-01-01T10:00:00.000Z');
    const via = { key_id: 'k1', key_prefix: 'svc_abcdefgh', idempotency_key: 'order-1' };
    send.messages[0]!.via = via;
    assert.equal(await store.messages.accept(send), null);
    const jane = send.messages[0]!;
    assert.deepEqual((await store.messages.get(a.id, jane.id))?.via, via);
    const attempt = (n: number, outcome: string, reply: string) => ({
      id: randomUUID(),
      workspace_id: a.id,
      message_id: jane.id,
      attempt: n,
      at: `2026-01-01T10:0${n}:00.000Z`,
      duration_ms: 12,
      host: 'mx.rcpt.test',
      ip: '192.0.2.25',
      tls: true,
      outcome,
      class: outcome === 'sent' ? null : 'deferred',
      reply,
      dkim: { domain: 'acme.test', selector: 'svc1', headers: 'from:to:subject' },
    });
    const job = send.jobs[0]!;
    await store.queue.complete(job.id, {
      updates: [],
      events: [],
      suppressions: [],
      retry: { message_ids: [jane.id], next_attempt_at: '2026-01-01T10:05:00.000Z', last_error: '451' },
      transcript: [attempt(1, 'temporary', '451 4.7.1 later')],
    });
    await store.queue.complete(job.id, {
      updates: [{ id: jane.id, status: 'sent', sent_at: '2026-01-01T10:06:00.000Z' }],
      events: [],
      suppressions: [],
      transcript: [attempt(2, 'sent', '250 OK')],
    });
    const got = await store.messages.attempts(a.id, jane.id);
    assert.deepEqual(
      got.map((x) => [x.attempt, x.outcome, x.reply, x.tls, x.dkim?.selector]),
      [
        [1, 'temporary', '451 4.7.1 later', true, 'svc1'],
        [2, 'sent', '250 OK', true, 'svc1'],
      ],
    );
    assert.deepEqual(await store.messages.attempts(other.id, jane.id), []);
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.equal((await again.messages.attempts(a.id, jane.id)).length, 2);
    assert.deepEqual((await again.messages.get(a.id, jane.id))?.via, via);
  });

  test(`${backend.name}: rule, the fair claim: transactional ahead of bulk, and workspaces in turns (20,000 of one queued first)`, async (t) => {
    const { store } = await fresh(backend, t);
    const big = await store.workspaces.create(ws('big'));
    const small = await store.workspaces.create(ws('small'));
    // 20,000 jobs of one workspace (a broadcast's worth, one recipient domain each), queued first.
    const flood = batch(
      big.id,
      Array.from({ length: 20_000 }, (_, i) => `r${i}@d${i}.test`),
      '2026-01-01T10:00:00.000Z',
    );
    flood.jobs = flood.messages.map((m, i) => ({
      ...flood.jobs[0]!,
      id: randomUUID(),
      domain: `d${i}.test`,
      message_ids: [m.id],
      priority: 1,
    }));
    await store.messages.accept(flood);
    // Then a few of another workspace's, bulk too, and one transactional send of the first workspace.
    const theirs = batch(small.id, ['a@rcpt.test', 'b@other.test', 'c@third.test'], '2026-01-01T10:00:05.000Z');
    theirs.jobs = theirs.messages.map((m, i) => ({
      ...theirs.jobs[0]!,
      id: randomUUID(),
      domain: `x${i}.test`,
      message_ids: [m.id],
      priority: 1,
    }));
    await store.messages.accept(theirs);
    const reset = batch(big.id, ['reset@rcpt.test'], '2026-01-01T10:00:09.000Z');
    await store.messages.accept(reset);

    const first = await store.queue.claim('w1', '2026-01-01T10:00:10.000Z', 60_000, 8);
    // The transactional one first; then the two workspaces' bulk jobs in turns.
    assert.equal(first[0]!.id, reset.jobs[0]!.id);
    assert.deepEqual(
      first.slice(1).map((j) => j.workspace_id),
      [big.id, small.id, big.id, small.id, big.id, small.id, big.id],
    );
    // Each workspace's own jobs in the order they came.
    assert.deepEqual(
      first.filter((j) => j.workspace_id === big.id && j.priority === 1).map((j) => j.domain),
      ['d0.test', 'd1.test', 'd2.test', 'd3.test'],
    );
    // Then the rest of the big one; nothing claimed twice.
    const next = await store.queue.claim('w2', '2026-01-01T10:00:10.000Z', 60_000, 50);
    assert.equal(next.length, 50);
    assert.ok(next.every((j) => j.workspace_id === big.id && !first.some((f) => f.id === j.id)));
    assert.equal(await store.queue.depth(), 20_004);
    // A paused destination's jobs are left queued; the rest are claimed.
    const other = batch(small.id, ['p@paused.test', 'q@open.test'], '2026-01-01T10:00:20.000Z');
    other.jobs = other.messages.map((m) => ({ ...other.jobs[0]!, id: randomUUID(), domain: m.to.split('@')[1]!, message_ids: [m.id] }));
    await store.messages.accept(other);
    const skipped = await store.queue.claim('w3', '2026-01-01T10:00:30.000Z', 60_000, 5, ['paused.test']);
    assert.deepEqual(skipped.map((j) => j.domain).slice(0, 1), ['open.test']);
    assert.ok(!skipped.some((j) => j.domain === 'paused.test'));
    assert.deepEqual(
      (await store.queue.claim('w3', '2026-01-01T10:00:30.000Z', 60_000, 1)).map((j) => j.domain),
      ['paused.test'],
    );
    // At most maxBulk bulk jobs in a claim; transactional ones are not counted against it.
    const late = batch(small.id, ['t1@rcpt.test'], '2026-01-01T10:00:40.000Z');
    await store.messages.accept(late);
    const capped = await store.queue.claim('w4', '2026-01-01T10:00:41.000Z', 60_000, 10, [], 2);
    assert.deepEqual(
      capped.map((j) => j.priority ?? 0),
      [0, 1, 1],
    );
    assert.deepEqual(await store.queue.claim('w4', '2026-01-01T10:00:41.000Z', 60_000, 10, [], 0), []);
  });

  test(`${backend.name}: queue: the operator's view: unfinished jobs oldest first, narrowed by workspace, domain, recipient, message and age, leases shown; take leases only free jobs; an outcome may keep the attempts`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const b = await store.workspaces.create(ws('beta'));
    const old = batch(a.id, ['jane@rcpt.test', 'bob@rcpt.test'], '2026-01-01T09:00:00.000Z');
    const other = batch(a.id, ['x@other.test'], '2026-01-01T09:30:00.000Z');
    other.jobs[0]!.domain = 'other.test';
    const theirs = batch(b.id, ['jane@rcpt.test'], '2026-01-01T10:00:00.000Z');
    for (const x of [theirs, old, other]) await store.messages.accept(x);
    const now = '2026-01-01T10:00:01.000Z';
    const ids = async (q: Parameters<typeof store.queue.pending>[0]) => (await store.queue.pending(q, now)).map((j) => j.id);
    assert.deepEqual(await ids({ limit: 10 }), [old.jobs[0]!.id, other.jobs[0]!.id, theirs.jobs[0]!.id], 'oldest first');
    assert.deepEqual(await ids({ limit: 1 }), [old.jobs[0]!.id]);
    assert.deepEqual(await ids({ workspaceId: b.id, limit: 10 }), [theirs.jobs[0]!.id]);
    assert.deepEqual(await ids({ domain: 'other.test', limit: 10 }), [other.jobs[0]!.id]);
    assert.deepEqual(await ids({ recipient: 'BOB@', limit: 10 }), [old.jobs[0]!.id]);
    assert.deepEqual(await ids({ messageId: theirs.messages[0]!.id, limit: 10 }), [theirs.jobs[0]!.id]);
    assert.deepEqual(await ids({ createdBefore: '2026-01-01T09:30:00.000Z', limit: 10 }), [old.jobs[0]!.id]);
    assert.deepEqual(
      (await store.queue.pending({ limit: 10 }, now)).map((j) => j.leased),
      [false, false, false],
    );

    // A hand-off holds one: take leaves it, takes the others once.
    const [held] = await store.queue.take('worker', [old.jobs[0]!.id], now, 60_000);
    assert.equal(held!.id, old.jobs[0]!.id);
    assert.deepEqual(
      (await store.queue.pending({ limit: 10 }, now)).map((j) => j.leased),
      [true, false, false],
    );
    const taken = await store.queue.take('operator', [old.jobs[0]!.id, other.jobs[0]!.id], now, 60_000);
    assert.deepEqual(
      taken.map((j) => j.id),
      [other.jobs[0]!.id],
    );
    assert.deepEqual(await store.queue.take('operator', [other.jobs[0]!.id], now, 60_000), [], 'taken once');
    assert.deepEqual(
      await store.queue.claim('worker2', now, 60_000, 10).then((js) => js.map((j) => j.id)),
      [theirs.jobs[0]!.id],
      'no worker takes what the operator holds',
    );

    // The operator's outcome: due now, attempts as they were, lease ended.
    await store.queue.complete(other.jobs[0]!.id, {
      updates: [{ id: other.messages[0]!.id, attempts: 0, next_attempt_at: now }],
      events: [],
      suppressions: [],
      retry: { message_ids: other.jobs[0]!.message_ids, next_attempt_at: now, last_error: '', attempts: 0 },
    });
    const after = (await store.queue.pending({ domain: 'other.test', limit: 10 }, now))[0]!;
    assert.deepEqual([after.attempts, after.leased, after.next_attempt_at], [0, false, now]);
    assert.deepEqual(
      (await store.queue.claim('worker3', now, 60_000, 10)).map((j) => j.id),
      [other.jobs[0]!.id],
    );

    // Held (a restored backup's queue): never claimed, even never tried, until an outcome lets it go.
    const restored = batch(a.id, ['later@rcpt.test'], '2026-01-01T10:00:00.500Z');
    await store.messages.accept(restored);
    const [mine] = await store.queue.take('operator', [restored.jobs[0]!.id], now, 60_000);
    await store.queue.complete(mine!.id, {
      updates: [],
      events: [],
      suppressions: [],
      retry: { message_ids: mine!.message_ids, next_attempt_at: mine!.next_attempt_at, last_error: '', attempts: 0, held: true },
    });
    assert.equal((await store.queue.pending({ messageId: restored.messages[0]!.id, limit: 1 }, now))[0]!.held, true);
    assert.deepEqual(
      await store.queue
        .claim('worker4', '2026-01-02T00:00:00.000Z', 60_000, 10)
        .then((js) => js.map((j) => j.id).filter((id) => id === restored.jobs[0]!.id)),
      [],
    );
    const [again] = await store.queue.take('operator', [restored.jobs[0]!.id], now, 60_000);
    await store.queue.complete(again!.id, {
      updates: [],
      events: [],
      suppressions: [],
      retry: { message_ids: again!.message_ids, next_attempt_at: now, last_error: '', attempts: 0 },
    });
    assert.equal((await store.queue.pending({ messageId: restored.messages[0]!.id, limit: 1 }, now))[0]!.held ?? false, false);
    assert.ok(
      (await store.queue.claim('worker5', '2026-01-02T00:00:00.000Z', 60_000, 10)).some((j) => j.id === restored.jobs[0]!.id),
      'let go: claimed',
    );
  });
}
