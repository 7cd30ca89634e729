// Webhooks end to end: mail really delivered to a sink, its events signed and POSTed to
// real receivers on loopback that verify the signature from the raw body.
import { test } from 'node:test';
import { verifyWebhook } from '../../src/webhooks/verify.js';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { sending, settled, type Sending } from '../helpers/sending.js';
import { receiver, type Receiver } from '../helpers/webhook-receiver.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SVC, json, svc } from '../helpers/cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { RETRY_DELAYS_MS } from '../../src/webhooks/retry.js';
import type { StoreLocation } from '../../src/config.js';

const INSECURE = { SVC_ALLOW_INSECURE_WEBHOOKS: '1' };

async function endpoint(s: Sending, r: Receiver, events?: string) {
  const e = await s.daemon.service.webhooks.add(s.ws, r.url, events);
  r.secret = e.secret;
  return e;
}

const mail = (to: string, subject = 'Hello') => ({ from: 'Acme <hello@acme.test>', to: [to], subject, body_html: '<p>Hi</p>' });

/** A daemon driven by hand on a moved clock: deliver() hands mail off, hooks() sends webhooks. */
async function manual(t: Parameters<typeof sending>[0], env: Record<string, string> = {}, store?: StoreLocation) {
  const clock = new ManualClock(new Date());
  const s = await sending(t, { clock, deliver: false, env: { ...INSECURE, ...env }, ...(store ? { store } : {}) });
  const worker = (name: string) => s.daemon.workers.find((w) => w.name === name)!;
  return { s, clock, deliver: () => worker('delivery').runOnce(), hooks: () => worker('webhooks').runOnce() };
}

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: message.sent and message.bounced reach subscribed endpoints, signed, with the spec's fields`, async (t) => {
    const store = backend === 'postgres' ? pgLocation(await migratedSchemaUrl(t)) : undefined;
    const s = await sending(t, { env: INSECURE, ...(store ? { store } : {}) });
    const all = await receiver(t);
    const bouncesOnly = await receiver(t);
    await endpoint(s, all);
    await endpoint(s, bouncesOnly, 'message.bounced');
    s.sink.refuse('gone@rcpt.test', 550, '5.1.1 no such user');

    const sent = await s.post(mail('jane@rcpt.test', 'Sent one'));
    const bounced = await s.post(mail('gone@rcpt.test', 'Bounced one'));
    assert.equal(sent.status, 202);
    await settled(s, sent.body.id);
    await settled(s, bounced.body.id);
    await all.waitFor(2);
    await bouncesOnly.waitFor(1);

    for (const r of [...all.received, ...bouncesOnly.received]) {
      assert.equal(r.verified, true, 'signature verifies over the raw body');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['user-agent'], 'Svc-Webhook/1.0');
      assert.equal(r.headers['x-svc-event'], r.body.event);
      assert.match(String(r.headers['x-svc-signature']), /^sha256=[0-9a-f]{64}$/);
      assert.ok(Number.isInteger(r.body.timestamp) && Math.abs(r.body.timestamp - Date.now() / 1000) < 60);
      assert.equal(r.body.from, 'hello@acme.test');
      assert.equal('to' in r.body, false, 'message.sent and message.bounced carry no recipient');
    }
    const byEvent = Object.fromEntries(all.received.map((r) => [r.body.event, r.body]));
    assert.equal(byEvent['message.sent'].message_id, sent.body.id);
    assert.equal(byEvent['message.sent'].subject, 'Sent one');
    assert.equal(byEvent['message.bounced'].message_id, bounced.body.id);
    assert.match(byEvent['message.bounced'].error, /550/);
    assert.deepEqual(
      bouncesOnly.received.map((r) => r.body.event),
      ['message.bounced'],
      'an endpoint filtered to one event gets only that one',
    );

    // Attempts are logged in batches, just after the answers arrive.
    let log = await s.daemon.service.webhooks.deliveries(s.ws, { limit: 10 });
    for (let i = 0; i < 100 && log.length < 3; i++) {
      await new Promise((res) => setTimeout(res, 20));
      log = await s.daemon.service.webhooks.deliveries(s.ws, { limit: 10 });
    }
    assert.equal(log.length, 3);
    assert.ok(log.every((a) => a.ok && a.status_code === 200 && a.response === 'ok' && a.kind === 'event' && a.attempt === 1));
    // The mail log names svc's id `message`, as its delivery lines do (`message_id` is the header there).
    const line = s.logs.find((l) => / webhook .*event=message\.sent/.test(l))!;
    assert.match(line, new RegExp(`message=${log.find((a) => a.event === 'message.sent')!.message_id}\\b`));
    assert.doesNotMatch(line, /message_id=/);
  });
}

test('svc webhooks add/list/test/deliveries/replay from the command line, on a running daemon', async (t) => {
  const s = await sending(t, { env: INSECURE });
  const r = await receiver(t);
  const store = `file:${(s.daemon.service.deps.config.store as { dir: string }).dir}`;
  const cli = (...args: string[]) => svc(['--store', store, '--workspace', 'acme', ...args, '--json'], { env: INSECURE });

  const added = json(await cli('webhooks', 'add', r.url));
  assert.match(added.secret, /^whsec_/);
  assert.deepEqual(added.events, ['message.*']);
  r.secret = added.secret;
  const listed = json(await cli('webhooks', 'list'));
  assert.deepEqual(
    listed.map((e: any) => e.id),
    [added.id],
  );
  assert.equal('secret' in listed[0], false, 'list never shows secrets');

  // `tail` piped: one JSON object per attempt as it happens.
  const tail = spawn(
    process.execPath,
    [SVC, '--store', store, '--workspace', 'acme', 'webhooks', 'tail', '--json', '--since', new Date(Date.now() - 1000).toISOString()],
    { env: { ...process.env, ...INSECURE }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.after(() => tail.kill());
  const tailed: any[] = [];
  createInterface({ input: tail.stdout }).on('line', (l) => tailed.push(JSON.parse(l)));

  const tested = json(await cli('webhooks', 'test', added.id));
  assert.equal(tested.status_code, 200);
  const [first] = await r.waitFor(1);
  assert.equal(first!.verified, true);
  assert.equal(first!.body.event, 'message.sent');
  assert.equal(first!.body.test, true);
  assert.match(first!.body.message_id, /^test_/);

  const replayed = json(await cli('webhooks', 'replay', tested.id));
  assert.notEqual(replayed.id, tested.id, 'a replay is a new attempt');
  assert.equal(replayed.status_code, 200);
  const [, second] = await r.waitFor(2);
  assert.equal(second!.verified, true);
  assert.equal(second!.body.message_id, first!.body.message_id);

  for (let i = 0; i < 100 && tailed.length < 2; i++) await new Promise((res) => setTimeout(res, 50));
  assert.deepEqual(
    tailed.map((a) => [a.id, a.kind, a.status_code]),
    [
      [tested.id, 'test', 200],
      [replayed.id, 'replay', 200],
    ],
  );
  tail.kill();

  const log = json(await cli('webhooks', 'deliveries', '--endpoint', added.id));
  assert.deepEqual(
    log.map((a: any) => a.kind),
    ['replay', 'test'],
  );
  for (const a of log) for (const f of ['id', 'endpoint_id', 'event', 'status_code', 'response', 'attempted_at']) assert.ok(f in a, f);

  // Rotating the secret (the default grace, 24 h): deliveries are signed with the new secret, and
  // with the old one in X-Svc-Signature-Previous, so a receiver not moved yet still accepts them.
  const graced = json(await cli('webhooks', 'rotate-secret', added.id));
  assert.notEqual(graced.secret, added.secret);
  const until = Date.parse(graced.previous_secret_until) - Date.parse(graced.secret_rotated_at);
  assert.equal(until, 24 * 3_600_000);
  json(await cli('webhooks', 'test', added.id));
  const [, , third] = await r.waitFor(3);
  assert.equal(third!.verified, false, 'X-Svc-Signature is the new secret’s');
  const previous = third!.headers['x-svc-signature-previous'] as string;
  assert.ok(verifyWebhook(Buffer.from(third!.raw), previous, added.secret).ok, 'X-Svc-Signature-Previous is the old secret’s');
  assert.ok(verifyWebhook(Buffer.from(third!.raw), third!.headers['x-svc-signature'] as string, graced.secret).ok);
  assert.ok(!JSON.stringify(json(await cli('webhooks', 'list'))).includes(added.secret), 'the old secret is never shown');
  // With --grace 0 the old secret stops at once: only the new one signs.
  const rotated = json(await cli('webhooks', 'rotate-secret', added.id, '--grace', '0'));
  assert.equal(rotated.previous_secret_until, null);
  json(await cli('webhooks', 'test', added.id));
  const [, , , fourth] = await r.waitFor(4);
  assert.equal(fourth!.headers['x-svc-signature-previous'], undefined);
  r.secret = rotated.secret;
  json(await cli('webhooks', 'test', added.id));
  assert.equal((await r.waitFor(5))[4]!.verified, true);
  assert.equal((await cli('webhooks', 'rotate-secret', added.id, '--grace', 'soon')).code, 2);

  const missing = await cli('webhooks', 'replay', '00000000-0000-0000-0000-000000000000');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /delivery .* not found/);
});

test('a receiver answering 500 then 200 gets the event again after the backoff; out of attempts it fails', async (t) => {
  const { s, clock, deliver, hooks } = await manual(t);
  const r = await receiver(t);
  r.now = () => Math.floor(clock.now().getTime() / 1000);
  const e = await endpoint(s, r);
  r.answers = [{ status: 500, body: 'boom' }];
  await s.post(mail('jane@rcpt.test'));
  await deliver();
  await hooks();
  assert.equal(r.received.length, 1);
  await hooks();
  assert.equal(r.received.length, 1, 'not again before the backoff');
  clock.advance(7_000);
  await hooks();
  assert.equal(r.received.length, 2);
  assert.equal(r.received[1]!.verified, true);
  assert.ok(r.received[1]!.body.timestamp > r.received[0]!.body.timestamp, 'each attempt is signed at its sending');
  const log = await s.daemon.service.webhooks.deliveries(s.ws, { endpoint_id: e.id, limit: 10 });
  assert.deepEqual(
    log.map((a) => [a.attempt, a.status_code, a.ok]),
    [
      [2, 200, true],
      [1, 500, false],
    ],
  );
  assert.equal(log[1]!.response, 'boom');
  assert.equal(await s.daemon.service.store.webhooks.depth(), 0);

  // Always failing: nine attempts over about a day and a half (each wait within ±20%), then the
  // job is done.
  r.fallback = { status: 503 };
  await s.post(mail('jane@rcpt.test'));
  await deliver();
  for (const wait of [...RETRY_DELAYS_MS, 86_400_000]) {
    await hooks();
    clock.advance(wait * 1.2 + 1000);
  }
  const failed = await s.daemon.service.webhooks.deliveries(s.ws, { failed: true, limit: 50 });
  assert.equal(failed.filter((a) => a.status_code === 503).length, 9);
  assert.equal(await s.daemon.service.store.webhooks.depth(), 0);
});

test('no answer within the timeout, a redirect, a 2 KB cap and a 410', async (t) => {
  const { s, clock, deliver, hooks } = await manual(t, { SVC_WEBHOOK_TIMEOUT: '300' });
  const r = await receiver(t);
  const elsewhere = await receiver(t);
  r.now = () => Math.floor(clock.now().getTime() / 1000);
  const e = await endpoint(s, r);
  r.answers = ['hang', { status: 302, headers: { location: elsewhere.url } }, { status: 200, body: 'x'.repeat(10_000) }, { status: 410 }];
  const attempts = async () => (await s.daemon.service.webhooks.deliveries(s.ws, { endpoint_id: e.id, limit: 10 }))[0]!;

  await s.post(mail('jane@rcpt.test'));
  await deliver();
  await hooks();
  let a = await attempts();
  assert.equal(a.status_code, null);
  assert.equal(a.error, 'timed out after 300 ms');

  clock.advance(7_000);
  await hooks();
  a = await attempts();
  assert.equal(a.status_code, 302);
  assert.match(a.error!, /redirect not followed/);
  assert.equal(elsewhere.received.length, 0);

  clock.advance(90_000);
  await hooks();
  a = await attempts();
  assert.equal(a.ok, true);
  assert.equal(a.response.length, 2048, 'the response kept is capped at 2 KB');

  await s.post(mail('jane@rcpt.test'));
  await deliver();
  await hooks();
  a = await attempts();
  assert.equal(a.status_code, 410);
  const [ep] = await s.daemon.service.webhooks.list(s.ws);
  assert.equal(ep!.status, 'disabled');
  assert.match(ep!.disabled_reason!, /410/);
  assert.ok(s.logs.some((l) => /disabled: the endpoint answered 410/.test(l)));

  // Disabled: events that happen meanwhile are not sent to it; enabled again, new ones are.
  await s.post(mail('jane@rcpt.test'));
  await deliver();
  await hooks();
  assert.equal(r.received.length, 4);
  await s.daemon.service.webhooks.enable(s.ws, e.id);
  await hooks();
  assert.equal(r.received.length, 4);
  await s.post(mail('jane@rcpt.test'));
  await deliver();
  await hooks();
  assert.equal(r.received.length, 5);
});

test('private addresses are refused without --allow-insecure-webhooks, also behind a name', async (t) => {
  const s = await sending(t, { deliver: false });
  const r = await receiver(t);
  const port = new URL(r.url).port;
  for (const url of [
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://169.254.169.254/latest',
    'https://0x7f000001/',
    'https://[::ffff:10.0.0.1]/',
    'http://example.com/',
  ]) {
    await assert.rejects(s.daemon.service.webhooks.add(s.ws, url), /allowed only with --allow-insecure-webhooks|must be https/, url);
  }
  // Names are resolved at delivery and every address checked: put endpoints in the store directly.
  const store = s.daemon.service.store;
  const at = new Date().toISOString();
  for (const [id, url] of [
    ['inside', `https://inside.hooks.test:${port}/hook`],
    ['mixed', `https://mixed.hooks.test:${port}/hook`],
    ['literal', `https://127.0.0.1:${port}/hook`],
  ] as const) {
    await store.endpoints.create({
      id,
      workspace_id: s.ws.id,
      url,
      events: ['message.*'],
      secret: 'whsec_x',
      status: 'enabled',
      disabled_reason: null,
      failing_since: null,
      created_at: at,
      secret_rotated_at: null,
      previous_secret: null,
      previous_secret_until: null,
    });
  }
  await s.post(mail('jane@rcpt.test'));
  await s.daemon.workers.find((w) => w.name === 'delivery')!.runOnce();
  await s.daemon.workers.find((w) => w.name === 'webhooks')!.runOnce();
  const log = await s.daemon.service.webhooks.deliveries(s.ws, { limit: 10 });
  const by = Object.fromEntries(log.map((a) => [a.endpoint_id, a]));
  assert.match(by.inside!.error!, /refused: inside\.hooks\.test resolves to a loopback address \(127\.0\.0\.1\)/);
  assert.match(by.mixed!.error!, /refused: mixed\.hooks\.test resolves to a private address \(10\.1\.2\.3\)/);
  assert.match(by.literal!.error!, /loopback/);
  assert.equal(r.received.length, 0, 'nothing reached the receiver');
});

test('pending retries survive a restart of the daemon', async (t) => {
  const { s, clock, deliver, hooks } = await manual(t);
  const r = await receiver(t);
  r.now = () => Math.floor(clock.now().getTime() / 1000);
  await endpoint(s, r);
  r.answers = [{ status: 500 }];
  await s.post(mail('jane@rcpt.test'));
  await deliver();
  await hooks();
  assert.equal(await s.daemon.service.store.webhooks.depth(), 1);
  const storeLoc = s.daemon.service.deps.config.store;
  await s.daemon.close();

  const again = await startTestDaemon(t, { store: storeLoc, clock, deliver: false, env: { ...INSECURE, SVC_DNS_SERVERS: s.dns.server } });
  assert.equal(await again.daemon.service.store.webhooks.depth(), 1);
  clock.advance(10_000);
  await again.daemon.workers.find((w) => w.name === 'webhooks')!.runOnce();
  assert.equal(r.received.length, 2);
  assert.equal(r.received[1]!.verified, true);
  assert.equal(await again.daemon.service.store.webhooks.depth(), 0);
});

test('an endpoint failing every delivery for three days is disabled, with a log line', async (t) => {
  const { s, clock, deliver, hooks } = await manual(t);
  const r = await receiver(t);
  r.fallback = { status: 500 };
  const e = await endpoint(s, r);
  for (let i = 0; i < 5; i++) {
    await s.post(mail('jane@rcpt.test'));
    await deliver();
    await hooks();
    clock.advance(20 * 3600_000);
    await hooks();
  }
  const [ep] = await s.daemon.service.webhooks.list(s.ws);
  assert.equal(ep!.id, e.id);
  assert.equal(ep!.status, 'disabled');
  assert.match(ep!.disabled_reason!, /every delivery failed since/);
  assert.ok(ep!.failing_since);
  assert.ok(s.logs.some((l) => l.includes(`endpoint ${e.id}`) && l.includes('disabled')));
});

test('replay --failed --since: each event whose latest attempt failed is sent once more', async (t) => {
  const { s, clock, deliver, hooks } = await manual(t);
  const r = await receiver(t);
  r.now = () => Math.floor(clock.now().getTime() / 1000);
  const e = await endpoint(s, r);
  const since = clock.now().toISOString();
  // Two events: the first fails twice, the second fails once and then is delivered by its retry.
  r.answers = [{ status: 500 }, { status: 500 }];
  await s.post(mail('jane@rcpt.test', 'first'));
  await s.post(mail('jane@rcpt.test', 'second'));
  await deliver();
  await hooks();
  r.answers = [{ status: 502 }];
  clock.advance(7_000);
  await hooks();
  const log = await s.daemon.service.webhooks.deliveries(s.ws, { endpoint_id: e.id, limit: 10 });
  assert.deepEqual(log.map((a) => a.ok).sort(), [false, false, false, true]);
  const stillFailing = log.find((a) => !a.ok && a.status_code === 502)!;

  // What a replay would send (--dry-run), sending nothing: the failed attempt itself.
  const before = r.received.length;
  const would = await s.daemon.service.webhooks.failedSince(s.ws, since);
  assert.deepEqual(
    would.map((a) => a.id),
    [stillFailing.id],
  );
  assert.equal(r.received.length, before, 'a dry run sends nothing');
  const replayed = await s.daemon.service.webhooks.replayFailed(s.ws, since);
  assert.deepEqual(
    replayed.map((a) => [a.kind, a.ok, a.message_id]),
    [['replay', true, stillFailing.message_id]],
  );
  assert.deepEqual(await s.daemon.service.webhooks.replayFailed(s.ws, since), [], 'nothing failed is left');
  // The replay settled that event's automatic retries: they never send it again.
  const received = r.received.length;
  for (let i = 0; i < 6; i++) {
    clock.advance(3 * 3600_000);
    await hooks();
  }
  assert.equal(r.received.length, received, 'no automatic retry after the replay was taken');

  const usage = await svc([
    '--store',
    `file:${(s.daemon.service.deps.config.store as { dir: string }).dir}`,
    'webhooks',
    'replay',
    '--failed',
  ]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--failed --since TIME/);
});
