// Hand-off outcomes with the clock moved by hand (no sleeping): permanent bounces suppress,
// temporary failures are retried with backoff, the retry window ends in a bounce, MX routing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { byTo, full, handOffByHand, mail, sending } from '../helpers/sending.js';
import { sink } from '../helpers/sink.js';
import { CONNECTIONS_PER_HOST } from '../../daemon/workers/outbound-queue.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import type { StoreLocation } from '../../src/config.js';

const setup = handOffByHand;

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])])
  test(`${backend}: 550 for one recipient: bounced with the reply, suppressed, the others sent; a later send skips it`, async (t) => {
    const { s, deliver } = await setup(t, {}, backend === 'postgres' ? pgLocation(await migratedSchemaUrl(t)) : undefined);
    s.sink.refuse('gone@rcpt.test', 550, '5.1.1 <gone@rcpt.test>: no such user');
    const r = await s.post(mail(['jane@rcpt.test', 'gone@rcpt.test']));
    assert.equal(r.status, 202);
    await deliver();
    const m = await byTo(s);
    assert.equal(m['jane@rcpt.test'].status, 'sent');
    assert.equal(m['gone@rcpt.test'].status, 'bounced');
    const gone = await full(s, m['gone@rcpt.test'].id);
    assert.match(gone.error, /^550 5\.1\.1 <gone@rcpt\.test>: no such user/);
    assert.ok(gone.bounced_at);
    const supp = await s.daemon.service.suppressions.list(s.ws);
    assert.deepEqual(
      supp.map((x) => [x.address, x.reason]),
      [['gone@rcpt.test', 'bounce']],
    );
    const events = await s.daemon.service.store.outbox.pending(10);
    assert.deepEqual(events.map((e) => e.event).sort(), ['message.bounced', 'message.sent']);
    const bounced = events.find((e) => e.event === 'message.bounced')!;
    assert.deepEqual(Object.keys(bounced.payload).sort(), ['error', 'from', 'message_id', 'subject']);
    assert.equal(bounced.payload.message_id, m['gone@rcpt.test'].id);

    // Suppressed recipients are never handed off again; the log says why.
    const before = s.sink.received.length;
    const again = await s.post(mail(['GONE@rcpt.test']));
    assert.equal(again.status, 202);
    const skipped = await full(s, again.body.id);
    assert.equal(skipped.status, 'bounced');
    assert.match(skipped.error, /is on the suppression list \(bounce/);
    await deliver();
    assert.equal(s.sink.received.length, before);
    assert.equal(await s.daemon.service.store.queue.depth(), 0);
  });

test("one busy host gets up to 20 SMTP sessions at once (Postfix's default per destination), never more", async (t) => {
  // Hand-offs wait for their DATA answers as long as the test holds them (not the 2 s default).
  const { s, deliver } = await setup(t, { SVC_SMTP_TIMEOUT: '60000' });
  // Every DATA is held until the pool has opened all it may: 30 jobs in flight (32 slots), so 20
  // sessions each hold a message and the ten other hand-offs wait for a session.
  let release!: () => void;
  s.sink.holdData = new Promise<void>((r) => (release = r));
  for (let i = 0; i < 30; i++) assert.equal((await s.post(mail([`r${i}@rcpt.test`]))).status, 202);
  const delivering = deliver();
  const until = Date.now() + 30_000;
  while (s.sink.held < CONNECTIONS_PER_HOST && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  // A moment more: a 21st session would have opened by now if the pool allowed one.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(CONNECTIONS_PER_HOST, 20);
  assert.deepEqual([s.sink.connections, s.sink.held], [20, 20], 'twenty sessions, each holding a message');
  release();
  await delivering;
  assert.equal(s.sink.received.length, 30);
  assert.equal(s.sink.connections, 20, 'the ten others waited for a session and reused it');
});

test('451 then 250: retried with backoff once the clock has moved, then sent', async (t) => {
  const { s, clock, deliver } = await setup(t);
  s.sink.refuse('slow@rcpt.test', 451, '4.7.1 greylisted, try later', 1);
  const r = await s.post(mail(['slow@rcpt.test']));
  await deliver();
  assert.equal((await full(s, r.body.id)).status, 'queued');
  assert.equal(s.sink.received.length, 0);
  // Not yet due: nothing happens.
  clock.advance(10_000);
  await deliver();
  assert.equal(s.sink.received.length, 0);
  clock.advance(60_000);
  await deliver();
  const m = await full(s, r.body.id);
  assert.equal(m.status, 'sent');
  assert.equal(s.sink.received.length, 1);
  assert.deepEqual(await s.daemon.service.suppressions.list(s.ws), []);
});

test('a server that never answers: timed out, retried later, sent when it answers', async (t) => {
  const { s, clock, deliver } = await setup(t, { SVC_SMTP_TIMEOUT: '300' });
  s.sink.silent = true;
  const r = await s.post(mail(['jane@rcpt.test']));
  await deliver();
  assert.equal((await full(s, r.body.id)).status, 'queued');
  s.sink.silent = false;
  clock.advance(3600_000);
  await deliver();
  assert.equal((await full(s, r.body.id)).status, 'sent');
});

test('temporary failures past the retry window bounce without suppression', async (t) => {
  const { s, clock, deliver } = await setup(t, { SVC_RETRY_WINDOW: '7200' });
  s.sink.refuse('full@rcpt.test', 452, '4.2.2 mailbox full');
  const r = await s.post(mail(['full@rcpt.test']));
  for (let i = 0; i < 12; i++) {
    await deliver();
    clock.advance(20 * 60_000);
  }
  const m = await full(s, r.body.id);
  assert.equal(m.status, 'bounced');
  assert.match(m.error, /^gave up after \d+ attempts over 120 minutes: 452 4\.2\.2 mailbox full/);
  assert.deepEqual(await s.daemon.service.suppressions.list(s.ws), []);
});

test('direct MX routing: implicit MX, a dead first MX, null MX, a failing look-up', async (t) => {
  const { s, deliver } = await setup(t, { SVC_SMTP_TIMEOUT: '500' });
  const r = await s.post(mail(['a@implicit.test', 'b@backup.test', 'c@nullmx.test', 'd@servfail.test', 'e@other.test']));
  assert.equal(r.body.recipient_count, 5);
  await deliver();
  const m = await byTo(s);
  assert.equal(m['a@implicit.test'].status, 'sent');
  assert.equal(m['b@backup.test'].status, 'sent');
  assert.equal(m['e@other.test'].status, 'sent');
  assert.equal(m['c@nullmx.test'].status, 'bounced');
  assert.match((await full(s, m['c@nullmx.test'].id)).error, /accepts no mail \(null MX\)/);
  assert.equal(m['d@servfail.test'].status, 'queued');
  // Each recipient domain is its own transaction.
  assert.deepEqual(s.sink.received.map((x) => x.to.join()).sort(), ['a@implicit.test', 'b@backup.test', 'e@other.test']);
});

test('smarthost mode: every message goes to the relay with authentication', async (t) => {
  const relay = await sink(t, {
    onAuth: (auth, _session, cb) =>
      auth.username === 'svc' && auth.password === 's3cret' ? cb(null, { user: 'svc' }) : cb(new Error('bad credentials')),
    authOptional: false,
    allowInsecureAuth: true,
    hideSTARTTLS: true,
  });
  const { s, deliver } = await setup(t, { SVC_OUTBOUND: `smtp://svc:s3cret@127.0.0.1:${relay.port}` });
  await s.post(mail(['someone@example.org', 'x@rcpt.test']));
  await deliver();
  // One transaction per recipient domain, all of them to the relay, authenticated.
  assert.deepEqual(relay.received.flatMap((x) => x.to).sort(), ['someone@example.org', 'x@rcpt.test']);
  assert.ok(relay.received.every((x) => x.user === 'svc'));
  assert.equal(s.sink.received.length, 0);
});

test(
  'a stop does not wait out a server that never greets: past the grace the session is cut, the attempt says so, the message stays queued to be tried again',
  { timeout: 120_000 },
  async (t) => {
    // The SMTP time-out is ten minutes: only the stop's own abandon can end this session in time.
    const s = await sending(t, { env: { SVC_SMTP_TIMEOUT: '600000' } });
    s.sink.silent = true;
    const r = await s.post(mail(['jane@rcpt.test']));
    assert.equal(r.status, 202);
    while (s.sink.connections === 0) await new Promise((res) => setTimeout(res, 20));
    await s.daemon.workers.find((w) => w.name === 'delivery')!.stop();
    const m = await full(s, r.body.id);
    assert.equal(m.status, 'queued');
    const explained = await s.daemon.service.explain(s.ws, r.body.id);
    assert.match(JSON.stringify(explained), /the daemon stopped during this hand-off; it is tried again later/);
  },
);
