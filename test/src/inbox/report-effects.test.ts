// What a report may change: only the records of the return paths it arrived at, and among them only
// one it names (or the sole one, when it names nobody).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { systemRandom } from '../../../src/clock.js';
import type { Message } from '../../../src/model/message.js';
import type { Dsn, Feedback, RecipientStatus } from '../../../src/inbox/reports.js';
import { bounceEffects, complaintEffects, type Candidates } from '../../../src/inbox/report-effects.js';

const NOW = '2026-11-28T12:00:00.000Z';
const record = (to: string, message_id = 'ours-1@acme.test'): Message => ({
  id: randomUUID(),
  workspace_id: 'ws-1',
  content_id: randomUUID(),
  source: 'api',
  from: 'hello@acme.test',
  to,
  kind: 'to',
  subject: 'Hello',
  status: 'sent',
  open_count: 0,
  click_count: 0,
  reply_count: 0,
  first_open_after_seconds: null,
  message_id,
  error: null,
  notes: [],
  created_at: NOW,
  sent_at: NOW,
  opened_at: null,
  clicked_at: null,
  replied_at: null,
  bounced_at: null,
  token: randomUUID(),
});
const status = (recipient: string | null, action: string, code: string, diagnostic: string | null = null): RecipientStatus => ({
  recipient,
  original: null,
  action,
  status: code,
  diagnostic,
});
const alone = (m: Message): Candidates => ({ records: [m], anonymous: m });
const dsn = (recipients: RecipientStatus[], original: string | null = 'ours-1@acme.test'): Dsn => ({ recipients, original });

test('a failed 5.1.1 bounces its record, posts message.bounced and suppresses the address', () => {
  const jane = record('Jane@rcpt.test');
  const o = bounceEffects(dsn([status('jane@rcpt.test', 'failed', '5.1.1', '550 5.1.1 no such user')]), alone(jane), systemRandom, NOW);
  assert.equal(o.ref, jane);
  assert.deepEqual(o.effects.updates, [
    { id: jane.id, status: 'bounced', error: 'bounce report: 5.1.1 550 5.1.1 no such user', bounced_at: NOW },
  ]);
  assert.equal(o.effects.outbox.length, 1);
  assert.equal(o.effects.outbox[0]!.event, 'message.bounced');
  assert.equal(o.effects.outbox[0]!.message_id, jane.id);
  assert.deepEqual(
    o.effects.suppressions.map((s) => [s.address, s.reason, s.message_id]),
    [['jane@rcpt.test', 'bounce', jane.id]],
  );
  assert.match(o.note, /failed 5\.1\.1, suppressed/);
});

test('a failed 4.x.x, or a 5.x.x about the message rather than the mailbox, bounces without suppressing', () => {
  const jane = record('jane@rcpt.test');
  for (const [code, diagnostic] of [
    ['4.4.7', 'message expired in queue'],
    ['5.7.1', '550 5.7.1 message content rejected as spam'],
  ] as const) {
    const o = bounceEffects(dsn([status('jane@rcpt.test', 'failed', code, diagnostic)]), alone(jane), systemRandom, NOW);
    assert.equal(o.effects.updates.length, 1, code);
    assert.equal(o.effects.suppressions.length, 0, code);
    assert.match(o.note, /not suppressed/);
  }
});

test('delayed, delivered and relayed are notes; nothing changes', () => {
  const jane = record('jane@rcpt.test');
  for (const action of ['delayed', 'delivered', 'relayed']) {
    const o = bounceEffects(dsn([status('jane@rcpt.test', action, '4.4.1')]), alone(jane), systemRandom, NOW);
    assert.deepEqual(o.effects, { updates: [], outbox: [], events: [], suppressions: [], lifted: [] }, action);
    assert.equal(o.ref, jane);
  }
  assert.match(
    bounceEffects(dsn([status('jane@rcpt.test', 'delayed', '4.4.1')]), alone(jane), systemRandom, NOW).note,
    /still being retried/,
  );
});

test('a report speaks only for the records of its return paths: another recipient, message or mailbox changes nothing', () => {
  const jane = record('jane@rcpt.test');
  const bob = record('bob@rcpt.test');
  const none = { updates: [], outbox: [], events: [], suppressions: [], lifted: [] };
  // Names someone its return path was not used for (a co-recipient's forged report).
  const other = bounceEffects(dsn([status('bob@rcpt.test', 'failed', '5.1.1')]), alone(jane), systemRandom, NOW);
  assert.deepEqual(other.effects, none);
  assert.match(other.note, /not the recipient this return path was used for/);
  // About another Message-ID than the one the return path was used for.
  const elsewhere = bounceEffects(dsn([status('jane@rcpt.test', 'failed', '5.1.1')], 'theirs@x.test'), alone(jane), systemRandom, NOW);
  assert.deepEqual(elsewhere.effects, none);
  // Sent to a mailbox, not a return path.
  assert.deepEqual(
    bounceEffects(dsn([status('jane@rcpt.test', 'failed', '5.1.1')]), { records: [], anonymous: null }, systemRandom, NOW).effects,
    none,
  );
  // No recipient status at all.
  assert.deepEqual(bounceEffects(dsn([]), alone(jane), systemRandom, NOW).effects, none);
  // Names nobody: the sole record of its return path, but never one of several.
  assert.equal(bounceEffects(dsn([status(null, 'failed', '5.1.1')]), alone(jane), systemRandom, NOW).effects.updates.length, 1);
  const two = { records: [jane, bob], anonymous: null };
  assert.deepEqual(bounceEffects(dsn([status(null, 'failed', '5.1.1')]), two, systemRandom, NOW).effects, none);
  // Of two return paths in one message, each named recipient is its own.
  const both = bounceEffects(
    dsn([status('jane@rcpt.test', 'failed', '5.1.1'), status('bob@rcpt.test', 'failed', '5.2.2')]),
    two,
    systemRandom,
    NOW,
  );
  assert.deepEqual(
    both.effects.updates.map((u) => u.id),
    [jane.id, bob.id],
  );
  // A diagnostic cannot put a line break into the record's error.
  const crlf = bounceEffects(dsn([status('jane@rcpt.test', 'failed', '5.1.1', 'a\r\nX-Injected: yes')]), alone(jane), systemRandom, NOW);
  assert.ok(!/[\r\n]/.test(crlf.effects.updates[0]!.error!));
});

const feedback = (type: string, recipients: string[] = ['jane@rcpt.test'], original: string | null = 'ours-1@acme.test'): Feedback => ({
  type,
  recipients,
  original,
  originalTo: null,
});

test('complaints: abuse and fraud suppress; not-spam lifts a complaint suppression only; other types are kept', () => {
  const jane = record('jane@rcpt.test');
  for (const type of ['abuse', 'fraud']) {
    const o = complaintEffects(feedback(type), alone(jane), 'fbl@isp.test', NOW);
    assert.deepEqual(
      o.effects.suppressions.map((s) => [s.address, s.reason, s.detail]),
      [['jane@rcpt.test', 'complaint', `${type} report from fbl@isp.test`]],
    );
  }
  const lift = complaintEffects(feedback('not-spam'), alone(jane), 'fbl@isp.test', NOW, new Map([['jane@rcpt.test', 'complaint']]));
  assert.deepEqual(lift.effects.lifted, [{ workspace_id: 'ws-1', address: 'jane@rcpt.test' }]);
  const bounced = complaintEffects(feedback('not-spam'), alone(jane), 'fbl@isp.test', NOW, new Map([['jane@rcpt.test', 'bounce']]));
  assert.deepEqual(bounced.effects.lifted, []);
  assert.match(bounced.note, /another reason \(bounce\), which only an operator lifts/);
  assert.match(complaintEffects(feedback('not-spam'), alone(jane), 'fbl@isp.test', NOW).note, /not suppressed/);
  for (const type of ['auth-failure', 'virus', 'other', 'unknown']) {
    const o = complaintEffects(feedback(type), alone(jane), 'fbl@isp.test', NOW);
    assert.deepEqual(o.effects, { updates: [], outbox: [], events: [], suppressions: [], lifted: [] }, type);
    assert.equal(o.ref, jane);
  }
});

test('a complaint about another recipient or message than its return path was used for changes nothing', () => {
  const jane = record('jane@rcpt.test');
  const bob = record('bob@rcpt.test');
  assert.equal(complaintEffects(feedback('abuse', ['bob@rcpt.test']), alone(jane), 'x', NOW).effects.suppressions.length, 0);
  assert.equal(
    complaintEffects(feedback('abuse', ['jane@rcpt.test'], 'theirs@x.test'), alone(jane), 'x', NOW).effects.suppressions.length,
    0,
  );
  // Names nobody: the sole record, never one of several.
  assert.equal(complaintEffects(feedback('abuse', []), alone(jane), 'x', NOW).effects.suppressions.length, 1);
  const several = complaintEffects(feedback('abuse', []), { records: [jane, bob], anonymous: null }, 'x', NOW);
  assert.equal(several.effects.suppressions.length, 0);
  assert.match(several.note, /names no recipient and the copy had several/);
});
