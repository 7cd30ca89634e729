// The daemon removes messages older than --retention-days.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { sending } from '../helpers/sending.js';

test('messages older than the retention are removed; newer ones stay', async (t) => {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const s = await sending(t, { clock, deliver: false, env: { SVC_RETENTION_DAYS: '7' } });
  const old = await s.post({ from: 'hello@acme.test', to: ['a@rcpt.test'], subject: 'old', body_text: 'x' });
  await s.daemon.workers.find((w) => w.name === 'delivery')!.runOnce();
  clock.advance(6 * 86_400_000);
  const recent = await s.post({ from: 'hello@acme.test', to: ['b@rcpt.test'], subject: 'recent', body_text: 'x' });
  clock.advance(2 * 86_400_000);
  await s.daemon.workers.find((w) => w.name === 'retention')!.runOnce();
  assert.equal((await s.get(`/api/v2/messages/${old.body.id}`)).status, 404);
  assert.equal((await s.get(`/api/v2/messages/${recent.body.id}`)).status, 200);
  assert.equal((await s.get('/api/v2/messages')).body.total, 1);
  assert.ok(s.logs.some((l) => /retention: removed 1 messages older than 7 days/.test(l)));
});

test('Idempotency-Keys past their 24 hours are forgotten by the retention worker; a younger one still replays', async (t) => {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const s = await sending(t, { clock, deliver: false });
  const body = { from: 'hello@acme.test', to: ['a@rcpt.test'], subject: 'keyed', body_text: 'x' };
  assert.equal((await s.post(body, s.key, 'key-old')).status, 202);
  clock.advance(20 * 3600_000);
  assert.equal((await s.post(body, s.key, 'key-young')).status, 202);
  clock.advance(5 * 3600_000);
  await s.daemon.workers.find((w) => w.name === 'retention')!.runOnce();
  assert.ok(
    s.logs.some((l) => /retention: forgot 1 Idempotency-Keys older than 24 hours/.test(l)),
    s.logs.join('\n'),
  );
  assert.equal((await s.post(body, s.key, 'key-young')).status, 200);
  assert.equal((await s.post(body, s.key, 'key-old')).status, 202);
});
