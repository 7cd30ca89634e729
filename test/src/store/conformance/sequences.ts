// Store conformance: sequences, steps and enrolments. Steps ordered by position, one per position;
// enrolment once per sequence and subscriber; due enrolments claimed under a lease; a step's send
// moves its enrolment on with its record, refused whole from a stale position; a new step wakes
// those who have not passed it; stop by subscriber; removal stops enrolments; workspaces kept
// apart; the same after a reopen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Enrolment, SequenceStep } from '../../../../src/model/sequence.js';
import { type Backend, batch, fresh, rejectsWith, ws } from './fixtures.js';

const AT = '2026-01-01T10:00:00.000Z';
const LATER = '2026-01-01T12:00:00.000Z';

export function sequencesConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, the moved enrolment step (a step's send is refused once its enrolment moved or stopped); sequences: steps by position, enrolment once, due claims under a lease, a step's send with its move, wake, stop, reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const other = await store.workspaces.create(ws('other'));
    const seq = await store.sequences.create({
      id: randomUUID(),
      workspace_id: a.id,
      list_id: 'L',
      name: 'Welcome',
      trigger: 'subscribe',
      active: true,
      created_at: AT,
      updated_at: AT,
    });
    assert.equal(seq.step_count, 0);
    assert.deepEqual(
      (await store.sequences.ofList(a.id, 'L')).map((s) => s.id),
      [seq.id],
    );
    assert.deepEqual(await store.sequences.ofList(other.id, 'L'), []);
    assert.equal(await store.sequences.get(other.id, seq.id), null);
    const step = (position: number, delay = 1): SequenceStep => ({
      id: randomUUID(),
      sequence_id: seq.id,
      workspace_id: a.id,
      position,
      delay_hours: delay,
      subject: `S${position}`,
      body_html: '',
      body_text: 'x',
      created_at: AT,
    });
    const s1 = await store.sequences.addStep(step(1));
    await store.sequences.addStep(step(0));
    await rejectsWith(store.sequences.addStep(step(1)), 'conflict');
    assert.deepEqual(
      (await store.sequences.steps(a.id, seq.id)).map((s) => s.position),
      [0, 1],
    );
    assert.equal((await store.sequences.get(a.id, seq.id))!.step_count, 2);
    assert.deepEqual(await store.sequences.steps(other.id, seq.id), []);

    const enrol = (subscriber_id: string, due_at: string | null = AT): Enrolment => ({
      id: randomUUID(),
      workspace_id: a.id,
      sequence_id: seq.id,
      list_id: 'L',
      subscriber_id,
      status: 'active',
      position: -1,
      last_at: AT,
      due_at,
      reason: null,
      created_at: AT,
    });
    const jane = enrol('jane');
    assert.equal(await store.sequences.enrol([jane, enrol('bob'), enrol('jane')]), 2);
    assert.equal(await store.sequences.enrol([enrol('bob')]), 0, 'once per sequence and subscriber');
    // Due ones, leased: a second claimer gets nothing while the lease holds.
    const claimed = await store.sequences.claimDue('w1', AT, 60_000, 10);
    assert.deepEqual(claimed.map((e) => e.subscriber_id).sort(), ['bob', 'jane']);
    assert.deepEqual(await store.sequences.claimDue('w2', AT, 60_000, 10), []);
    assert.deepEqual(await store.sequences.claimDue('w2', '2026-01-01T09:00:00.000Z', 60_000, 10), [], 'not due before its time');

    // Jane's step 0 goes with its record; from a stale position it is refused whole.
    const send = batch(a.id, ['jane@rcpt.test'], AT);
    const move = { id: jane.id, from: -1, position: 0, last_at: AT, due_at: LATER, reason: null };
    assert.equal(await store.messages.accept({ ...send, enrolment: move }), null);
    assert.deepEqual(await store.messages.accept({ ...batch(a.id, ['jane@rcpt.test'], AT), enrolment: move }), {
      refused: 'enrolment_moved',
    });
    assert.equal((await store.messages.list(a.id, { limit: 10, offset: 0 })).total, 1);
    // Bob: moved on without a send (a later due time); from a stale position, false.
    const bob = claimed.find((e) => e.subscriber_id === 'bob')!;
    assert.equal(await store.sequences.advance({ id: bob.id, from: -1, position: -1, last_at: AT, due_at: LATER, reason: null }), true);
    assert.equal(await store.sequences.advance({ id: bob.id, from: 5, position: 6, last_at: AT, due_at: null, reason: null }), false);
    const byId = async () => new Map((await store.sequences.enrolments(a.id, seq.id)).map((e) => [e.subscriber_id, e]));
    assert.deepEqual([(await byId()).get('jane')!.position, (await byId()).get('jane')!.due_at], [0, LATER]);
    assert.deepEqual(await store.sequences.claimDue('w2', AT, 60_000, 10), []);
    assert.equal((await store.sequences.claimDue('w2', LATER, 60_000, 10)).length, 2, 'due again at LATER, their leases released');

    // Waiting with nothing due; a new step past Jane's position wakes her (due at her last step).
    for (const e of await byId().then((m) => [...m.values()]))
      await store.sequences.advance({ id: e.id, from: e.position, position: e.position, last_at: e.last_at, due_at: null, reason: null });
    assert.deepEqual(await store.sequences.claimDue('w3', LATER, 60_000, 10), []);
    await store.sequences.addStep(step(2));
    assert.deepEqual((await store.sequences.claimDue('w3', LATER, 60_000, 10)).map((e) => e.subscriber_id).sort(), ['bob', 'jane']);

    // Stop by subscriber (another workspace's stops nothing); removal stops the rest and takes the steps.
    assert.equal(await store.sequences.stop(other.id, 'jane', 'unsubscribed', AT), 0);
    assert.equal(await store.sequences.stop(a.id, 'jane', 'unsubscribed', AT), 1);
    assert.deepEqual([(await byId()).get('jane')!.status, (await byId()).get('jane')!.reason], ['stopped', 'unsubscribed']);
    assert.equal(await store.sequences.removeStep(a.id, seq.id, s1.id), true);
    assert.equal(await store.sequences.removeStep(a.id, seq.id, s1.id), false);

    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.deepEqual(
      (await again.sequences.steps(a.id, seq.id)).map((s) => s.position),
      [0, 2],
    );
    const kept = new Map((await again.sequences.enrolments(a.id, seq.id)).map((e) => [e.subscriber_id, e]));
    assert.deepEqual([kept.get('jane')!.status, kept.get('jane')!.position, kept.get('bob')!.status], ['stopped', 0, 'active']);
    assert.equal(await again.sequences.remove(other.id, seq.id), false);
    assert.equal(await again.sequences.remove(a.id, seq.id), true);
    assert.deepEqual(await again.sequences.list(a.id), []);
    assert.ok((await again.sequences.enrolments(a.id, seq.id)).every((e) => e.status === 'stopped'));
  });
}
