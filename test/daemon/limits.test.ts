// spec.md "Idempotency key", "Rate limit" and "Plan quotas", with the clock moved by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { sending, type Sending } from '../helpers/sending.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation, pgProxy } from '../helpers/pg.js';

const email = (over: Record<string, unknown> = {}) => ({
  from: 'hello@acme.test',
  to: ['jane@rcpt.test'],
  subject: 'Hi',
  body_text: 'x',
  ...over,
});
const bcc = (n: number, tag = 'r') => Array.from({ length: n }, (_, i) => `${tag}${i}@rcpt.test`);

async function postWithKey(s: Sending, body: unknown, idem: string) {
  const r = await fetch(`${s.api}/api/v2/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', 'idempotency-key': idem },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any, replayed: r.headers.get('idempotent-replayed') };
}

test('idempotency: claim, replay with the original body, release on failure, 24 h expiry', async (t) => {
  const clock = new ManualClock('2026-03-10T12:00:00Z');
  const s = await sending(t, { clock, deliver: false });
  const first = await postWithKey(s, email(), 'order-1');
  assert.equal(first.status, 202);
  assert.equal(first.replayed, null);
  const again = await postWithKey(s, email(), 'order-1');
  assert.deepEqual([again.status, again.body, again.replayed], [200, first.body, 'true']);
  assert.equal((await s.get('/api/v2/messages')).body.total, 1, 'nothing sent twice');
  // A failure before queueing gives the key back.
  assert.equal((await postWithKey(s, email({ subject: undefined }), 'order-2')).status, 400);
  assert.equal((await postWithKey(s, email(), 'order-2')).status, 202);
  // Keys are per workspace.
  // After 24 hours the key is new again.
  clock.advance(24 * 3600_000 + 1000);
  const later = await postWithKey(s, email(), 'order-1');
  assert.equal(later.status, 202);
  assert.notEqual(later.body.id, first.body.id);
  assert.equal((await postWithKey(s, email(), '')).status, 202, 'an empty header is no key');
});

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`idempotency (${backend}): the same key with a different body is 422 and sends nothing; the same body in another order replays`, async (t) => {
    const s = await sending(t, { deliver: false, ...(backend === 'postgres' ? { store: pgLocation(await migratedSchemaUrl(t)) } : {}) });
    const first = await postWithKey(s, email(), 'order-9');
    assert.equal(first.status, 202);
    const other = await postWithKey(s, email({ subject: 'changed' }), 'order-9');
    assert.equal(other.status, 422);
    assert.equal(other.body.error, 'this Idempotency-Key was already used with a different request body; use a new key for a new email');
    assert.equal(other.replayed, null);
    // The same body with its keys in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(email()).reverse());
    const replay = await postWithKey(s, reordered, 'order-9');
    assert.deepEqual([replay.status, replay.body, replay.replayed], [200, first.body, 'true']);
    assert.equal((await s.get('/api/v2/messages')).body.total, 1, 'nothing else was sent');
  });
}

test('idempotency: two concurrent requests with one key give one send', async (t) => {
  const s = await sending(t, { deliver: false });
  const results = await Promise.all(Array.from({ length: 6 }, () => postWithKey(s, email({ bcc: bcc(20) }), 'race')));
  const statuses = results.map((r) => r.status).sort();
  assert.equal(statuses.filter((x) => x === 202).length, 1, JSON.stringify(statuses));
  for (const r of results) if (r.status === 409) assert.equal(r.body.error, 'a request with this Idempotency-Key is still in progress');
  for (const r of results) if (r.status === 200) assert.equal(r.body.id, results.find((x) => x.status === 202)!.body.id);
  assert.equal((await s.get('/api/v2/messages')).body.total, 21);
});

test('rate limit: the 61st request in a minute is 429 with Retry-After; the window slides; keys are separate', async (t) => {
  const clock = new ManualClock('2026-03-10T12:00:00Z');
  const s = await sending(t, { clock, deliver: false, env: { SVC_RATE_LIMIT: '60' } });
  for (let i = 0; i < 30; i++) assert.equal((await s.get('/api/v2/me')).status, 200);
  clock.advance(20_000);
  for (let i = 0; i < 30; i++) assert.equal((await s.get('/api/v2/me')).status, 200);
  const over = await fetch(`${s.api}/api/v2/me`, { headers: { authorization: `Bearer ${s.key}` } });
  assert.equal(over.status, 429);
  assert.equal(over.headers.get('retry-after'), '40');
  const body = (await over.json()) as Record<string, unknown>;
  assert.equal(body.error, 'rate limit exceeded: 60 requests per minute per API key');
  assert.ok(!('code' in body));
  // Another key of the same workspace is not affected.
  const other = (await s.daemon.service.keys.create(s.ws, { scopes: 'send,read' })).key;
  assert.equal((await s.get('/api/v2/me', other)).status, 200);
  // 40 s later the first 30 have left the window.
  clock.advance(40_001);
  for (let i = 0; i < 30; i++) assert.equal((await s.get('/api/v2/me')).status, 200, `after the slide ${i}`);
  assert.equal((await s.get('/api/v2/me')).status, 429);
  // Replays count against the rate limit too.
  clock.advance(60_001);
  for (let i = 0; i < 59; i++) await s.get('/api/v2/me');
  assert.equal((await postWithKey(s, email(), 'k')).status, 202);
  assert.equal((await postWithKey(s, email(), 'k')).status, 429);
});

test('send quota: every recipient counts, per day and per month, resets at 00:00 UTC and on the 1st; replays are free', async (t) => {
  const clock = new ManualClock('2026-03-10T12:00:00Z');
  const s = await sending(t, { clock, deliver: false, plan: 'trial' });
  const a = await postWithKey(s, email({ cc: ['c@rcpt.test'], bcc: bcc(148) }), 'a');
  assert.equal(a.status, 202);
  assert.equal(a.body.recipient_count, 150);
  assert.equal((await postWithKey(s, email({ cc: ['c@rcpt.test'], bcc: bcc(148) }), 'a')).status, 200, 'a replay is not counted');
  const over = await s.post(email({ bcc: bcc(50, 'x') }));
  assert.equal(over.status, 429);
  assert.deepEqual(
    { ...over.body, error: typeof over.body.error },
    {
      code: 'quota_exceeded',
      error: 'string',
      kind: 'api_sends',
      limit: 200,
      used: 150,
      window: 'day',
      resets_at: '2026-03-11T00:00:00.000Z',
      upgrade_url: `${s.api}/app/w/acme/workspace#plan`,
    },
  );
  // The upgrade URL is a page that exists: the app's workspace page (sign-in first without a session).
  const upgrade = await fetch(over.body.upgrade_url, { redirect: 'manual' });
  assert.match(String(upgrade.status), /^30[23]$/);
  assert.match(upgrade.headers.get('location')!, /\/app\/sign-in/);
  assert.equal((await s.get('/api/v2/messages')).body.total, 150, 'nothing queued');
  assert.equal((await s.post(email({ bcc: bcc(49, 'y') }))).status, 202, '150 + 50 = 200 fits');
  assert.equal((await s.post(email())).status, 429);
  const usage = await s.daemon.service.workspaces.usage('acme');
  assert.deepEqual(
    usage.quotas.find((q) => q.window === 'day'),
    { kind: 'api_sends', used: 200, limit: 200, window: 'day', resets_at: '2026-03-11T00:00:00.000Z' },
  );
  assert.equal(usage.quotas.find((q) => q.window === 'month')!.used, 200);
  clock.set('2026-03-11T00:00:00.000Z');
  assert.equal((await s.post(email())).status, 202, 'a new day');
  // Seven days after it was made, a trial workspace is read-only.
  clock.set('2026-03-20T00:00:00.000Z');
  const ro = await s.post(email());
  assert.equal(ro.status, 403);
  assert.match(ro.body.error, /trial .* ended .* read-only/);
});

test('monthly quota: over on the last day, allowed again on the 1st', async (t) => {
  const clock = new ManualClock('2026-03-31T22:00:00Z');
  const s = await sending(t, { clock, deliver: false, plan: 'starter' });
  for (let i = 0; i < 10; i++) assert.equal((await s.post(email({ to: [], bcc: bcc(1000, `m${i}x`) }))).status, 202);
  const over = await s.post(email());
  assert.deepEqual(
    [over.status, over.body.window, over.body.limit, over.body.used, over.body.resets_at],
    [429, 'month', 10_000, 10_000, '2026-04-01T00:00:00.000Z'],
  );
  clock.set('2026-04-01T00:00:01Z');
  assert.equal((await s.post(email())).status, 202);
});

test('relay: 452 4.5.3 at RCPT when the envelope goes over, and at DATA', async (t) => {
  const s = await sending(t, { deliver: false, plan: 'trial' });
  assert.equal((await s.post(email({ to: [], bcc: bcc(198) }))).status, 202);
  const c = (await RawSmtp.open(s.daemon.url('relay'))).client;
  await c.cmd('EHLO x');
  await c.cmd(`AUTH PLAIN ${plain(s.key)}`);
  await c.cmd('MAIL FROM:<hello@acme.test>');
  assert.match(await c.cmd('RCPT TO:<a@rcpt.test>'), /^250 /);
  assert.match(await c.cmd('RCPT TO:<b@rcpt.test>'), /^250 /);
  assert.match(await c.cmd('RCPT TO:<c@rcpt.test>'), /^452 4\.5\.3 Sending limit reached/);
  // The allowance is used up by the API meanwhile: the DATA is refused, temporarily.
  assert.equal((await s.post(email())).status, 202);
  await c.cmd('DATA');
  assert.match(await c.cmd('Subject: x\r\n\r\ny\r\n.'), /^452 4\.5\.3 sending limit reached/);
  assert.equal((await s.get('/api/v2/messages')).body.total, 199);
});

if (TEST_DATABASE_URL) {
  test('two daemons on one Postgres share a key rate limit and a workspace quota; store down → 503', async (t) => {
    const url = await migratedSchemaUrl(t);
    const proxy = await pgProxy(t);
    const clock = new ManualClock('2026-03-10T12:00:00Z');
    const a = await sending(t, {
      clock,
      deliver: false,
      plan: 'trial',
      store: pgLocation(proxy.through(url), { connectTimeoutMs: 1000 }),
      env: { SVC_RATE_LIMIT: '60' },
    });
    const b = await startTestDaemon(t, { clock, deliver: false, store: pgLocation(url), env: { SVC_RATE_LIMIT: '60' } });
    const viaB = (path: string, init: RequestInit = {}) =>
      fetch(`${b.api}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
      });
    for (let i = 0; i < 30; i++) assert.equal((await a.get('/api/v2/me')).status, 200);
    for (let i = 0; i < 30; i++) assert.equal((await viaB('/api/v2/me')).status, 200);
    assert.equal((await a.get('/api/v2/me')).status, 429);
    assert.equal((await viaB('/api/v2/me')).status, 429);
    clock.advance(61_000);
    // One quota for both: 150 through one daemon, 51 through the other is over.
    assert.equal((await a.post(email({ to: [], bcc: bcc(150) }))).status, 202);
    const over = await viaB('/api/v2/emails', { method: 'POST', body: JSON.stringify(email({ to: [], bcc: bcc(51, 'z') })) });
    assert.equal(over.status, 429);
    assert.equal(((await over.json()) as { used: number }).used, 150);
    // Idempotency across daemons: completed through one, replayed through the other.
    clock.advance(61_000);
    const done = await postWithKey(a, email(), 'shared');
    const replay = await viaB('/api/v2/emails', {
      method: 'POST',
      headers: { 'idempotency-key': 'shared' },
      body: JSON.stringify(email()),
    });
    assert.deepEqual(
      [replay.status, replay.headers.get('idempotent-replayed'), ((await replay.json()) as { id: string }).id],
      [200, 'true', done.body.id],
    );
    // The store goes away: a keyed send is 503 with the spec's text, nothing sent.
    proxy.cut();
    const down = await postWithKey(a, email(), 'while-down');
    assert.equal(down.status, 503);
    proxy.restore();
  });
}
