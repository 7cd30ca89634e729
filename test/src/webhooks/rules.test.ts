import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEvents } from '../../../src/webhooks/events.js';
import { endpointWants } from '../../../src/model/event.js';
import { MAX_ATTEMPTS, nextAttempt, RETRY_DELAYS_MS } from '../../../src/webhooks/retry.js';
import { signature, webhookBody } from '../../../src/webhooks/sign.js';
import { verifyWebhook } from '../../../src/webhooks/verify.js';
import { systemRandom } from '../../../src/clock.js';

test('events: message.* by default, reserved names accepted, unknown ones refused', () => {
  assert.deepEqual(parseEvents(undefined), ['message.*']);
  assert.deepEqual(parseEvents('message.sent, message.complained,message.sent'), ['message.sent', 'message.complained']);
  assert.deepEqual(parseEvents('message.sent,message.*'), ['message.*']);
  assert.throws(() => parseEvents('message.nope'), /unknown event 'message.nope'/);
  assert.throws(() => parseEvents(' , '), /at least one event/);
  assert.equal(endpointWants(['message.*'], 'message.opened'), true);
  assert.equal(endpointWants(['message.bounced'], 'message.sent'), false);
});

test('retries: nine attempts, each wait within 20% of the schedule, then none', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  assert.equal(MAX_ATTEMPTS, 9);
  for (let n = 1; n < MAX_ATTEMPTS; n++) {
    for (let i = 0; i < 20; i++) {
      const wait = nextAttempt(n, now, systemRandom)!.getTime() - now.getTime();
      assert.ok(wait >= RETRY_DELAYS_MS[n - 1]! * 0.8 && wait <= RETRY_DELAYS_MS[n - 1]! * 1.2, `attempt ${n}: ${wait}`);
    }
  }
  assert.equal(nextAttempt(MAX_ATTEMPTS, now, systemRandom), null);
  const total = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) / 3_600_000;
  assert.ok(total > 24 && total < 36, `about a day and a half: ${total} h`);
});

test('the README verification helper: constant-time signature check and timestamp window', () => {
  const secret = 'whsec_test';
  const body = webhookBody('message.sent', { message_id: 'm1', from: 'a@b.test', subject: 'Hi' }, new Date('2026-01-01T00:00:00Z'));
  assert.deepEqual(Object.keys(JSON.parse(body)), ['event', 'timestamp', 'message_id', 'from', 'subject']);
  const sig = signature(secret, body);
  assert.match(sig, /^sha256=[0-9a-f]{64}$/);
  const now = Date.parse('2026-01-01T00:01:00Z') / 1000;
  assert.equal(verifyWebhook(body, sig, secret, { now }).ok, true);
  assert.deepEqual(verifyWebhook(body, sig, 'whsec_other', { now }), { ok: false, reason: 'signature mismatch' });
  assert.deepEqual(verifyWebhook(body + ' ', sig, secret, { now }), { ok: false, reason: 'signature mismatch' });
  assert.deepEqual(verifyWebhook(body, undefined, secret, { now }), { ok: false, reason: 'signature mismatch' });
  assert.deepEqual(verifyWebhook(body, sig, secret, { now: now + 3600 }), { ok: false, reason: 'timestamp too old (or in the future)' });
});
