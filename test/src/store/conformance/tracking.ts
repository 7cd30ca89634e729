// Store conformance: message events (opens, clicks) and what they change on their records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { MessageEvent, Source, TrackKind } from '../../../../src/model/tracking.js';
import { type Backend, fresh, sentToJaneAndBob } from './fixtures.js';

const event = (
  m: { id: string; workspace_id: string },
  kind: TrackKind,
  source: Source,
  at: string,
  url: string | null = null,
): MessageEvent => ({
  id: randomUUID(),
  workspace_id: m.workspace_id,
  message_id: m.id,
  kind,
  prefetch: source === 'prefetch' || source === 'scanner',
  source,
  reason: 'test',
  url,
  ip: '192.0.2.1',
  user_agent: 'Mozilla/5.0',
  created_at: at,
});

export function trackingConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, the tracking counters: records by token; events counted by source; a click counts an open when none was; webhooks for counted ones; per workspace`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const { a, other, send, jane, bob } = await sentToJaneAndBob(store, '2026-01-01T10:00:10.000Z');

    const found = await store.tracking.byTokens([jane.token!, 'nope', bob.token!]);
    assert.deepEqual(found.map((m) => m.id).sort(), [jane.id, bob.id].sort());
    assert.deepEqual(await store.tracking.byTokens(['nope']), []);

    // Jane: an Apple prefetch 2 s after sending (not counted), then a click (counts as her first
    // open), then an open through Gmail's proxy. Bob: a scanner only.
    const opened = {
      id: randomUUID(),
      workspace_id: a.id,
      event: 'message.opened' as const,
      message_id: jane.id,
      payload: { message_id: jane.id, to: jane.to },
      created_at: '2026-01-01T10:05:00.000Z',
    };
    await store.tracking.record(
      [
        event(jane, 'open', 'prefetch', '2026-01-01T10:00:12.000Z'),
        event(jane, 'click', 'human', '2026-01-01T10:05:00.000Z', 'https://example.com/a'),
      ],
      [opened],
    );
    await store.tracking.record(
      [
        event(jane, 'open', 'proxy', '2026-01-01T10:06:00.000Z'),
        event(bob, 'click', 'scanner', '2026-01-01T10:00:11.000Z', 'https://example.com/a'),
      ],
      [],
    );
    const j = (await store.messages.get(a.id, jane.id))!;
    assert.deepEqual(
      [j.open_count, j.click_count, j.opened_at, j.clicked_at, j.first_open_after_seconds, j.status],
      [2, 1, '2026-01-01T10:05:00.000Z', '2026-01-01T10:05:00.000Z', 2, 'sent'],
    );
    const bb = (await store.messages.get(a.id, bob.id))!;
    assert.deepEqual([bb.open_count, bb.click_count, bb.opened_at, bb.first_open_after_seconds], [0, 0, null, null]);

    const events = await store.tracking.events(a.id, jane.id);
    assert.deepEqual(
      events.map((e) => [e.kind, e.source, e.prefetch, e.url]),
      [
        ['open', 'prefetch', true, null],
        ['click', 'human', false, 'https://example.com/a'],
        ['open', 'proxy', false, null],
      ],
    );
    assert.deepEqual(await store.tracking.events(other.id, jane.id), []);
    assert.deepEqual(
      (await store.outbox.pending(10)).map((e) => [e.event, e.message_id]),
      [['message.opened', jane.id]],
    );

    // An event of a record that does not exist is dropped with its webhook event.
    const ghost = { id: randomUUID(), workspace_id: a.id };
    await store.tracking.record(
      [event(ghost, 'open', 'human', '2026-01-01T10:07:00.000Z')],
      [{ ...opened, id: randomUUID(), message_id: ghost.id }],
    );
    assert.equal((await store.outbox.pending(10)).length, 1);
    assert.deepEqual(await store.tracking.events(a.id, ghost.id), []);

    // All of it is there after a reopen.
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.equal((await again.messages.get(a.id, jane.id))?.open_count, 2);
    assert.deepEqual(await again.tracking.events(a.id, jane.id), events);
    assert.deepEqual(
      (await again.tracking.events(a.id, bob.id)).map((e) => [e.kind, e.source]),
      [['click', 'scanner']],
    );
    assert.equal((await again.tracking.byTokens([bob.token!]))[0]?.id, bob.id);
  });
}
