// Store conformance: webhooks. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Message } from '../../../../src/model/message.js';
import { type Backend, fresh, ws, batch, endpoint, attemptOf } from './fixtures.js';

export function webhooksConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, which endpoints want an event (theirs, enabled, there before it, of its workspace); webhooks: endpoints, leased jobs, the delivery log`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const all = await store.endpoints.create(endpoint(a.id, ['message.*']));
    const bounces = await store.endpoints.create(endpoint(a.id, ['message.bounced']));
    const late = await store.endpoints.create(endpoint(a.id, ['message.*'], '2026-01-01T11:00:00.000Z'));
    const off = await store.endpoints.create(endpoint(a.id, ['message.*']));
    const elsewhere = await store.endpoints.create(endpoint(other.id, ['message.*']));
    assert.equal(all.failing_since, null);
    assert.deepEqual(
      (await store.endpoints.listByWorkspace(a.id)).map((e) => e.id),
      [all.id, bounces.id, late.id, off.id],
    );
    assert.equal(await store.endpoints.get(other.id, all.id), null, 'another workspace cannot see it');
    const disabled = await store.endpoints.update(a.id, off.id, { status: 'disabled', disabled_reason: 'by hand' });
    assert.deepEqual([disabled?.status, disabled?.disabled_reason], ['disabled', 'by hand']);
    assert.equal(await store.endpoints.update(other.id, off.id, { status: 'enabled', disabled_reason: null }), null);

    // Two events in the outbox (written with a job outcome, as delivery does).
    const send = batch(a.id, ['jane@rcpt.test', 'gone@rcpt.test'], '2026-01-01T10:00:00.000Z');
    await store.messages.accept(send);
    const [jane, gone] = send.messages as [Message, Message];
    const at = '2026-01-01T10:00:05.000Z';
    const sentEv = {
      id: randomUUID(),
      workspace_id: a.id,
      event: 'message.sent' as const,
      message_id: jane.id,
      payload: { message_id: jane.id, from: 'hello@acme.test', subject: 'Hi' },
      created_at: at,
    };
    const bouncedEv = {
      id: randomUUID(),
      workspace_id: a.id,
      event: 'message.bounced' as const,
      message_id: gone.id,
      payload: { message_id: gone.id, from: 'hello@acme.test', subject: 'Hi', error: '550' },
      created_at: at,
    };
    await store.queue.complete(send.jobs[0]!.id, { updates: [], events: [sentEv, bouncedEv], suppressions: [] });

    // Fan-out: all gets both, bounces the bounce; not the endpoint added after, the disabled one or another workspace's.
    assert.deepEqual(await store.webhooks.fanOut('2026-01-01T10:00:06.000Z', 1), { events: 1, jobs: 1 });
    assert.deepEqual(await store.webhooks.fanOut('2026-01-01T10:00:06.000Z', 100), { events: 1, jobs: 2 });
    assert.deepEqual(await store.webhooks.fanOut('2026-01-01T10:00:06.000Z', 100), { events: 0, jobs: 0 });
    assert.deepEqual(await store.outbox.pending(10), []);
    assert.equal(await store.webhooks.depth(), 3);

    const now = '2026-01-01T10:00:07.000Z';
    const claimed = await store.webhooks.claim('w1', now, 60_000, 10);
    assert.deepEqual(claimed.map((c) => `${c.endpoint.id === all.id ? 'all' : 'bounces'}:${c.job.event}`).sort(), [
      'all:message.bounced',
      'all:message.sent',
      'bounces:message.bounced',
    ]);
    const c0 = claimed.find((c) => c.endpoint.id === all.id && c.job.event === 'message.sent')!;
    assert.deepEqual([c0.job.message_id, c0.job.payload, c0.job.attempts, c0.job.event_id], [jane.id, sentEv.payload, 0, sentEv.id]);
    assert.equal(c0.endpoint.secret, all.secret);
    // The claimed endpoint has every field, the grace of a rotated secret included (none here).
    assert.deepEqual([c0.endpoint.previous_secret, c0.endpoint.previous_secret_until], [null, null]);
    assert.deepEqual(await store.webhooks.claim('w2', now, 60_000, 10), [], 'leased');

    // Delivered, failed and rescheduled, failed for good: one call.
    const c1 = claimed.find((c) => c.endpoint.id === all.id && c.job.event === 'message.bounced')!;
    const c2 = claimed.find((c) => c.endpoint.id === bounces.id)!;
    await store.webhooks.record([
      { attempt: attemptOf(all, c0.job, true, now), job: { id: c0.job.id, state: 'delivered', attempts: 1, next_attempt_at: now } },
      {
        attempt: attemptOf(all, c1.job, false, '2026-01-01T10:00:08.000Z'),
        job: { id: c1.job.id, state: 'pending', attempts: 1, next_attempt_at: '2026-01-01T10:05:00.000Z' },
      },
      {
        attempt: attemptOf(bounces, c2.job, false, now),
        job: { id: c2.job.id, state: 'failed', attempts: 1, next_attempt_at: now },
        disable: 'answered 410',
      },
    ]);
    assert.equal(await store.webhooks.depth(), 1);
    assert.equal(
      (await store.endpoints.get(a.id, all.id))?.failing_since,
      '2026-01-01T10:00:08.000Z',
      'failing since its last failure run began',
    );
    assert.deepEqual(
      [(await store.endpoints.get(a.id, bounces.id))?.status, (await store.endpoints.get(a.id, bounces.id))?.disabled_reason],
      ['disabled', 'answered 410'],
    );
    assert.deepEqual(await store.webhooks.claim('w1', '2026-01-01T10:04:59.000Z', 60_000, 10), []);
    const retried = await store.webhooks.claim('w1', '2026-01-01T10:05:00.000Z', 60_000, 10);
    assert.deepEqual(
      retried.map((c) => [c.job.id, c.job.attempts]),
      [[c1.job.id, 1]],
    );

    // The log: newest first, filters, one row by id, per workspace.
    const log = await store.webhooks.attempts(a.id, { limit: 10 });
    assert.equal(log.length, 3);
    assert.deepEqual(
      (await store.webhooks.attempts(a.id, { failed: true, limit: 10 })).map((x) => x.ok),
      [false, false],
    );
    assert.deepEqual(
      (await store.webhooks.attempts(a.id, { endpoint_id: bounces.id, limit: 10 })).map((x) => x.endpoint_id),
      [bounces.id],
    );
    assert.deepEqual(
      (await store.webhooks.attempts(a.id, { since: '2026-01-01T10:00:08.000Z', limit: 10 })).map((x) => x.job_id),
      [c1.job.id],
    );
    assert.deepEqual(await store.webhooks.attempts(other.id, { limit: 10 }), []);
    const one = log.find((x) => x.job_id === c0.job.id)!;
    assert.deepEqual(await store.webhooks.attempt(a.id, one.id), one);
    assert.equal(await store.webhooks.attempt(other.id, one.id), null);
    assert.deepEqual(await store.webhooks.attemptIdsWithPrefix(a.id, one.id.slice(0, 8), 10), [one.id]);
    assert.deepEqual(await store.webhooks.attemptIdsWithPrefix(other.id, one.id.slice(0, 8), 10), []);
    assert.equal(one.payload.message_id, jane.id);

    // A test attempt (no job), a success clears failing_since; enable clears the reason.
    await store.webhooks.record([{ attempt: attemptOf(all, null, true, '2026-01-01T10:06:00.000Z') }]);
    assert.equal((await store.endpoints.get(a.id, all.id))?.failing_since, null);
    const enabled = await store.endpoints.update(a.id, bounces.id, { status: 'enabled', disabled_reason: null });
    assert.deepEqual([enabled?.status, enabled?.disabled_reason], ['enabled', null]);
    const rotated = await store.endpoints.update(a.id, all.id, { secret: 'whsec_new', secret_rotated_at: '2026-01-01T10:07:00.000Z' });
    assert.deepEqual([rotated?.secret, rotated?.secret_rotated_at, rotated?.url], ['whsec_new', '2026-01-01T10:07:00.000Z', all.url]);
    assert.deepEqual([rotated?.previous_secret, rotated?.previous_secret_until], [null, null]);
    // A rotation with a grace keeps the secret before it until a time; one without clears it.
    const graced = await store.endpoints.update(a.id, all.id, {
      secret: 'whsec_newer',
      secret_rotated_at: '2026-01-01T10:07:30.000Z',
      previous_secret: 'whsec_new',
      previous_secret_until: '2026-01-02T10:07:30.000Z',
    });
    assert.deepEqual([graced?.previous_secret, graced?.previous_secret_until], ['whsec_new', '2026-01-02T10:07:30.000Z']);
    const status = await store.endpoints.update(a.id, all.id, { status: 'enabled', disabled_reason: null });
    assert.equal(status?.previous_secret, 'whsec_new', 'another change keeps it');
    const cleared = await store.endpoints.update(a.id, all.id, { secret: 'whsec_new', previous_secret: null, previous_secret_until: null });
    assert.deepEqual([cleared?.secret, cleared?.previous_secret, cleared?.previous_secret_until], ['whsec_new', null, null]);

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
}
