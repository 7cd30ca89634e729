// Delivery correctness against a sink that answers the exact replies real servers give: only a bad
// mailbox or domain suppresses; policy, content and sender refusals bounce without; our own
// smarthost failing is retried and loud; a server's recipient cap and a 421 MX are worked around in
// the same attempt; a TLS handshake that fails falls back to plaintext; deferrals are visible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { byTo, full, handOffByHand, mail, sending } from '../helpers/sending.js';
import { Sink, sink } from '../helpers/sink.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import type { StoreLocation } from '../../src/config.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpDir } from '../helpers/tmp.js';

const setup = handOffByHand;

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: only a bad mailbox or domain suppresses, with its evidence; policy and content refusals bounce without`, async (t) => {
    const { s, deliver } = await setup(t, {}, backend === 'postgres' ? pgLocation(await migratedSchemaUrl(t)) : undefined);
    s.sink.refuse('gone@rcpt.test', 550, '5.1.1 <gone@rcpt.test>: Recipient address rejected: User unknown');
    s.sink.refuse('listed@rcpt.test', 554, '5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org');
    s.sink.refuse('relay@rcpt.test', 554, '5.7.1 <relay@rcpt.test>: Relay access denied');
    s.sink.refuse('full@rcpt.test', 552, '5.2.2 Mailbox full', 1);
    const r = await s.post(
      mail(['gone@rcpt.test', 'listed@rcpt.test', 'relay@rcpt.test', 'full@rcpt.test', 'jane@rcpt.test', 'x@nowhere.invalid']),
    );
    assert.equal(r.status, 202);
    await deliver();
    const m = await byTo(s);
    assert.deepEqual(Object.fromEntries(Object.entries(m).map(([to, x]) => [to, x.status])), {
      'gone@rcpt.test': 'bounced',
      'listed@rcpt.test': 'bounced',
      'relay@rcpt.test': 'bounced',
      'full@rcpt.test': 'queued',
      'jane@rcpt.test': 'sent',
      'x@nowhere.invalid': 'bounced',
    });
    assert.match((await full(s, m['x@nowhere.invalid'].id)).error, /nowhere\.invalid does not exist \(NXDOMAIN\)/);
    const full1 = await full(s, m['full@rcpt.test'].id);
    assert.deepEqual([full1.attempts, full1.last_error, typeof full1.next_attempt_at], [1, '552 5.2.2 Mailbox full', 'string']);
    const supp = await s.daemon.service.suppressions.list(s.ws);
    assert.deepEqual(supp.map((x) => [x.address, x.class, x.message_id]).sort(), [
      ['gone@rcpt.test', 'bad-mailbox', m['gone@rcpt.test'].id],
      ['x@nowhere.invalid', 'bad-domain', m['x@nowhere.invalid'].id],
    ]);
    assert.match(supp.find((x) => x.address === 'gone@rcpt.test')!.detail!, /User unknown/);
    // The mail log: one line per recipient of each attempt, its status, enhanced code and class.
    const lines = s.logs.join('');
    assert.match(
      lines,
      new RegExp(
        `svc: delivery message=${m['gone@rcpt.test'].id} .*to=gone@rcpt\\.test .*status=bounced dsn=5\\.1\\.1 class=bad-mailbox .*attempt=1 reply="550 5\\.1\\.1`,
      ),
    );
    assert.match(lines, /svc: delivery .*status=bounced dsn=5\.7\.1 class=policy .*attempt=1 reply="554 5\.7\.1/);
    assert.match(
      lines,
      /svc: delivery .*to=full@rcpt\.test .*status=deferred dsn=5\.2\.2 class=mailbox-full .*attempt=1 reply="552 5\.2\.2 Mailbox full"/,
    );
    assert.match(lines, /svc: delivery .*status=sent dsn=2\.\d\.\d /);
    assert.doesNotMatch(lines, /(warn|error): delivery/, 'a remote refusal is no fault of ours');
  });
}

test('a refusal at MAIL FROM or after DATA concerns the message: bounced, nobody suppressed', async (t) => {
  const { s, deliver } = await setup(t);
  s.sink.dataReply = { code: 550, message: '5.7.1 Message rejected as spam' };
  const a = await s.post(mail(['jane@rcpt.test']));
  await deliver();
  assert.deepEqual(
    [(await full(s, a.body.id)).status, (await full(s, a.body.id)).error],
    ['bounced', '550 5.7.1 Message rejected as spam'],
  );
  s.sink.dataReply = null;
  s.sink.mailReply = { code: 550, message: '5.7.1 Sender address rejected' };
  const b = await s.post(mail(['bob@rcpt.test']));
  await deliver();
  assert.equal((await full(s, b.body.id)).status, 'bounced');
  assert.deepEqual(await s.daemon.service.suppressions.list(s.ws), []);
});

test('a smarthost refusing our login: retried, never bounced or suppressed, loud in the log and /healthz; clears when it works', async (t) => {
  // The smarthost's password was changed; later the operator fixes it on the smarthost's side.
  let fixed = false;
  const smarthost = await sink(t, {
    disabledCommands: ['STARTTLS'],
    authOptional: false,
    allowInsecureAuth: true,
    onAuth: (auth, _session, cb) =>
      fixed ? cb(null, { user: auth.username }) : cb(Object.assign(new Error('5.7.8 Error: authentication failed'), { responseCode: 535 })),
  });
  const { s, clock, deliver } = await setup(t, { SVC_OUTBOUND: `smtp://app:wrong@127.0.0.1:${smarthost.port}` });
  const r = await s.post(mail(['jane@rcpt.test', 'bob@rcpt.test']));
  await deliver();
  const m = await full(s, r.body.id);
  assert.equal(m.status, 'queued');
  assert.equal(m.attempts, 1);
  assert.match(m.last_error, /535 5\.7\.8/);
  assert.deepEqual(await s.daemon.service.suppressions.list(s.ws), []);
  const health = (await (await fetch(`${s.api}/healthz`)).json()) as { ok: boolean; faults?: Array<{ kind: string; detail: string }> };
  assert.equal(health.ok, true);
  assert.equal(health.faults?.[0]?.kind, 'outbound');
  assert.match(health.faults![0]!.detail, /hop-auth.*535 5\.7\.8/);
  assert.equal(s.logs.filter((l) => /outbound: the next hop refused/.test(l)).length, 1, 'said once, not per message');
  // More failures within the minute: still one line (repeats are counted, not printed).
  await s.post(mail(['carl@rcpt.test']));
  await deliver();
  assert.equal(s.logs.filter((l) => /outbound: the next hop refused/.test(l)).length, 1);
  // A minute on, the next failure says how many there were.
  clock.advance(61_000);
  await s.post(mail(['dora@rcpt.test']));
  await deliver();
  const lines = s.logs.filter((l) => /outbound: the next hop refused/.test(l));
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /\(2 more time\(s\) since the last line, 3 since /);
  assert.equal((await full(s, r.body.id)).status, 'queued');
  // Fixed: the retry goes out, the fault clears, and that is said once.
  fixed = true;
  clock.advance(3600_000);
  await deliver();
  assert.equal((await full(s, r.body.id)).status, 'sent');
  // The log names the smarthost's address, as it names an MX's.
  assert.match(s.logs.join(''), /svc: delivery .*to=jane@rcpt\.test relay=127\.0\.0\.1 ip=127\.0\.0\.1 tls=\S+ status=sent/);
  assert.deepEqual(await (await fetch(`${s.api}/healthz`)).json(), { ok: true });
  assert.equal(s.logs.filter((l) => /outbound: working again after \d+ failure\(s\)/.test(l)).length, 1, s.logs.join(''));
  assert.deepEqual(await s.daemon.service.suppressions.list(s.ws), []);
});

test('a server capped at 10 recipients: 25 go in three transactions in the same attempt; our own cap splits too (--return-path from: one transaction for many)', async (t) => {
  const { s, deliver } = await setup(t, { SVC_RECIPIENTS_PER_TRANSACTION: '8', SVC_RETURN_PATH: 'from' });
  s.sink.maxRcpt = 10;
  const to = Array.from({ length: 25 }, (_, i) => `r${i}@rcpt.test`);
  await s.post(mail(to));
  await deliver();
  const m = await byTo(s);
  assert.deepEqual([...new Set(Object.values(m).map((x: any) => x.status))], ['sent']);
  assert.deepEqual(
    s.sink.received.map((x) => x.to.length),
    [8, 8, 8, 1],
    'at most 8 per transaction, ours being the smaller cap',
  );

  s.sink.received.length = 0;
  const { s: s2, deliver: deliver2 } = await setup(t, { SVC_RETURN_PATH: 'from' });
  s2.sink.maxRcpt = 10;
  await s2.post(mail(to));
  await deliver2();
  assert.deepEqual([...new Set(Object.values(await byTo(s2)).map((x: any) => x.status))], ['sent']);
  assert.deepEqual(
    s2.sink.received.map((x) => x.to.length),
    [10, 10, 5],
    '452 4.5.3: the rest went at once in new transactions',
  );
});

test('an MX at preference 1 answering 421 passes the message to the next MX in the same attempt', async (t) => {
  const { s, deliver } = await setup(t);
  // The preferred MX is another sink on 127.0.0.3, the same port; it greets with 421.
  let first: Sink;
  try {
    first = await new Sink().start(s.sink.port, '127.0.0.3');
  } catch (e) {
    return t.skip(`cannot listen on 127.0.0.3:${s.sink.port}: ${(e as Error).message}`);
  }
  t.after(() => first.stop());
  first.greeting = { code: 421, message: '4.3.2 Service shutting down' };
  s.dns.zone('$ORIGIN pref.test\n@ MX 1 busy.pref.test\n@ MX 10 mx.rcpt.test\nbusy A 127.0.0.3\n');
  const r = await s.post(mail(['jane@pref.test']));
  await deliver();
  assert.equal((await full(s, r.body.id)).status, 'sent');
  assert.equal(s.sink.received.length, 1);
  // The message's life lists both hosts of that attempt, the busy one with what it said.
  const attempts = (await s.daemon.service.explain(s.ws, r.body.id)).timeline
    .filter((e) => e.stage.includes('attempt') || /busy\.pref\.test|mx\.rcpt\.test/.test(e.detail))
    .map((e) => e.detail);
  assert.ok(
    attempts.some((d) => /busy\.pref\.test/.test(d) && /421/.test(d) && /next MX/.test(d)),
    attempts.join('\n'),
  );
  assert.ok(
    attempts.some((d) => /mx\.rcpt\.test/.test(d)),
    attempts.join('\n'),
  );
});

test('an MX whose STARTTLS handshake fails (old TLS only) gets the mail in plaintext at once', async (t) => {
  const { s, deliver } = await setup(t);
  // Another sink on 127.0.0.4 whose TLS stops at 1.0: our client (1.2 at least) cannot shake hands.
  let old: Sink;
  try {
    old = await new Sink({ maxVersion: 'TLSv1', minVersion: 'TLSv1' } as never).start(s.sink.port, '127.0.0.4');
  } catch (e) {
    return t.skip(`cannot listen on 127.0.0.4:${s.sink.port}: ${(e as Error).message}`);
  }
  t.after(() => old.stop());
  s.dns.zone('$ORIGIN oldtls.test\n@ MX 10 mx.oldtls.test\nmx A 127.0.0.4\n');
  const r = await s.post(mail(['jane@oldtls.test']));
  await deliver();
  const m = await full(s, r.body.id);
  assert.equal(m.status, 'sent', m.last_error);
  assert.equal(old.received.length, 1);
  assert.equal(old.received[0]!.secure, false);
});

test('outbound manners: EHLO with --helo-name, SIZE= on MAIL FROM, a Feedback-ID header', async (t) => {
  const { s, deliver } = await setup(t, { SVC_HELO_NAME: 'out.acme-mailer.test' });
  const r = await s.post(mail(['jane@rcpt.test']));
  await deliver();
  assert.equal((await full(s, r.body.id)).status, 'sent');
  const got = s.sink.received[0]!;
  assert.equal(got.helo, 'out.acme-mailer.test');
  assert.equal(Number(got.mailArgs.SIZE), got.raw.length, 'SIZE= is the size of what was sent');
  assert.match(got.raw.toString(), new RegExp(`^Feedback-ID: api:${s.ws.id}:svc\\r$`, 'm'));
});

test('a smarthost with a certificate of a private CA: refused (hop-tls, retried) until --outbound-ca names the CA', async (t) => {
  const dir = await tmpDir(t);
  const ca = join(dir, 'ca.pem');
  const key = join(dir, 'key.pem');
  // A self-signed certificate is its own CA: what an operator's private CA amounts to here.
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=relay.internal',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      ca,
    ],
    { encoding: 'utf8' },
  );
  if (r.error || r.status !== 0) return t.skip(`openssl cannot make a certificate here: ${r.error?.message ?? r.stderr}`);
  const smarthost = await sink(t, { key: readFileSync(key), cert: readFileSync(ca) });
  const outbound = `smtp://127.0.0.1:${smarthost.port}`;
  const strict = await setup(t, { SVC_OUTBOUND: outbound });
  const a = await strict.s.post(mail(['jane@rcpt.test']));
  await strict.deliver();
  const m = await full(strict.s, a.body.id);
  assert.deepEqual([m.status, m.attempts], ['queued', 1]);
  assert.match(m.last_error, /self.signed certificate|unable to verify/i);
  const trusting = await setup(t, { SVC_OUTBOUND: outbound, SVC_OUTBOUND_CA: ca });
  const b = await trusting.s.post(mail(['jane@rcpt.test']));
  await trusting.deliver();
  assert.equal((await full(trusting.s, b.body.id)).status, 'sent');
  assert.equal(smarthost.received.at(-1)!.secure, true, 'over TLS, the certificate checked');
});

test('a smarthost with sender-login checks refuses the VERP return path at RCPT: our hop (retried, /healthz), never a bounce; --return-path from is taken', async (t) => {
  // As Postfix's submission with reject_sender_login_mismatch answers a sender its user does not own.
  const loginMaps = (rcpt: string, sender: string) =>
    sender.startsWith('bounces+') ? { code: 553, message: `5.7.1 <${sender}>: Sender address rejected: not owned by user app` } : null;
  const smarthost = await sink(t, { disabledCommands: ['STARTTLS'] });
  smarthost.rcptRules.push(loginMaps);
  const { s, deliver } = await setup(t, { SVC_OUTBOUND: `smtp://127.0.0.1:${smarthost.port}` });
  const r = await s.post(mail(['jane@rcpt.test', 'bob@rcpt.test']));
  await deliver();
  const m = await full(s, r.body.id);
  assert.deepEqual([m.status, m.attempts], ['queued', 1]);
  assert.match(m.last_error, /553 5\.7\.1 .*Sender address rejected/);
  assert.deepEqual(await s.daemon.service.suppressions.list(s.ws), []);
  const health = (await (await fetch(`${s.api}/healthz`)).json()) as { faults?: Array<{ kind: string; detail: string }> };
  assert.equal(health.faults?.[0]?.kind, 'outbound');
  assert.match(health.faults![0]!.detail, /hop-sender.*Sender address rejected/);
  // Refused for the first recipient: the second was not offered to the same refusal again.
  assert.equal(smarthost.received.length, 0);
  // Relay access denied is the same kind of fault.
  smarthost.rcptRules = [(rcpt) => ({ code: 554, message: `5.7.1 <${rcpt}>: Relay access denied` })];
  const r2 = await s.post(mail(['carl@rcpt.test']));
  await deliver();
  assert.equal((await full(s, r2.body.id)).status, 'queued');

  // With the From address as envelope sender the same smarthost takes it.
  smarthost.rcptRules = [loginMaps];
  const fromMode = await setup(t, { SVC_OUTBOUND: `smtp://127.0.0.1:${smarthost.port}`, SVC_RETURN_PATH: 'from' });
  const r3 = await fromMode.s.post(mail(['jane@rcpt.test', 'bob@rcpt.test']));
  await fromMode.deliver();
  assert.equal((await full(fromMode.s, r3.body.id)).status, 'sent');
  assert.deepEqual(
    smarthost.received.map((x) => [x.from, x.to.length]),
    [['hello@acme.test', 2]],
  );
});

test('a smarthost answering "Relay access denied" past --retry-window: the mail waits (hop-relay, queue list, /healthz); bounced after five days naming our hop, nobody suppressed', async (t) => {
  const smarthost = await sink(t, { disabledCommands: ['STARTTLS'] });
  smarthost.rcptRules.push((rcpt) => ({ code: 554, message: `5.7.1 <${rcpt}>: Relay access denied` }));
  const { s, clock, deliver } = await setup(t, { SVC_OUTBOUND: `smtp://127.0.0.1:${smarthost.port}`, SVC_RETRY_WINDOW: '600' });
  const r = await s.post(mail(['jane@rcpt.test']));
  await deliver();
  // Far past the retry window, attempt after attempt: still queued, never the recipient's bounce.
  for (let i = 0; i < 6; i++) {
    clock.advance(3600_000);
    await deliver();
  }
  const m = await full(s, r.body.id);
  assert.equal(m.status, 'queued', 'a hop fault is not bounced when the retry window ends');
  assert.match(m.last_error, /Relay access denied/);
  const health = (await (await fetch(`${s.api}/healthz`)).json()) as { faults?: Array<{ kind: string; detail: string }> };
  assert.match(health.faults![0]!.detail, /hop-relay.*Relay access denied/);
  const queued = await s.daemon.service.queue.list({ workspaceId: s.ws.id });
  assert.deepEqual(
    queued.map((q: { id: string }) => q.id),
    [r.body.id],
  );
  // Five days on (Postfix's queue life): bounced, the reason names our hop, nobody suppressed.
  clock.advance(5 * 86_400_000);
  await deliver();
  const gone = await full(s, r.body.id);
  assert.equal(gone.status, 'bounced');
  assert.match(gone.error, /our own next hop .*5 days \(hop-relay\).*Relay access denied/);
  assert.deepEqual(await s.daemon.service.suppressions.list(s.ws), []);
});

test('a recipient domain with neither MX nor address records (NODATA) bounces at once like NXDOMAIN: 5.1.2, only that address suppressed', async (t) => {
  const { s, deliver } = await setup(t);
  s.dns.zone('$ORIGIN nodata.test\n@ TXT "v=spf1 -all"\n');
  const r = await s.post(mail(['jane@nodata.test']));
  await deliver();
  const m = await full(s, r.body.id);
  assert.deepEqual([m.status, m.attempts], ['bounced', 1]);
  assert.match(m.error, /nodata\.test has no MX and no address records \(NODATA\)/);
  assert.deepEqual(
    (await s.daemon.service.suppressions.list(s.ws)).map((x) => [x.address, x.class]),
    [['jane@nodata.test', 'bad-domain']],
  );
  assert.match(s.logs.join(''), /svc: delivery .*to=jane@nodata\.test .*status=bounced dsn=5\.1\.2 class=bad-domain/);
});
