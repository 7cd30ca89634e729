// POST /api/v2/emails refusals: each rule of the spec with its status and text, and nothing stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { publish } from '../helpers/domains.js';

const ok = { from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Hi', body_text: 'x' };

test('validation: the spec texts, 400, nothing queued', async (t) => {
  const s = await sending(t);
  const cases: Array<[unknown, string | RegExp]> = [
    [{ ...ok, from: undefined }, 'from, to, subject are required'],
    [{ ...ok, to: undefined }, 'from, to, subject are required'],
    [{ ...ok, subject: undefined }, 'from, to, subject are required'],
    [{ ...ok, to: [] }, 'from, to, subject are required'],
    [{ ...ok, from: 'not an address' }, 'from address is not a valid email'],
    [{ ...ok, from: 'a'.repeat(40_000) + '@acme.test' }, 'from address is not a valid email'],
    [{ ...ok, from: 'x@acme.test, y@acme.test' }, 'from address is not a valid email'],
    [{ ...ok, body_text: undefined }, 'body_html or body_text is required'],
    [{ ...ok, to: 'jane@rcpt.test' }, /^invalid body/],
    [{ ...ok, to: [42] }, /^invalid body/],
    [{ ...ok, subject: 7 }, /^invalid body/],
    [{ ...ok, body_html: { a: 1 } }, /^invalid body/],
    [[ok], 'invalid body'],
    [{ ...ok, subject: 'Hi\r\nBcc: victim@evil.test' }, /CR and LF/],
    [{ ...ok, from: 'Evil\r\nBcc: x@y.test <hello@acme.test>' }, /CR and LF/],
    [{ ...ok, to: ['Jane\n <jane@rcpt.test>'] }, /CR and LF/],
    [{ ...ok, to: ['jane@rcpt.test', 'nope'] }, /invalid recipient in to: nope/],
    [{ ...ok, to: ['x'.repeat(40_000) + '@rcpt.test'] }, /invalid recipient/],
    [{ ...ok, bcc: Array.from({ length: 1001 }, (_, i) => `r${i}@rcpt.test`) }, /too many recipients/],
  ];
  for (const [b, error] of cases) {
    const r = await s.post(b);
    assert.equal(r.status, 400, JSON.stringify(b).slice(0, 100));
    if (typeof error === 'string') assert.equal(r.body.error, error);
    else assert.match(r.body.error, error);
  }
  const raw = await fetch(`${s.api}/api/v2/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
    body: '{"from":',
  });
  assert.deepEqual([raw.status, ((await raw.json()) as { error: string }).error.startsWith('invalid body')], [400, true]);
  assert.deepEqual((await s.get('/api/v2/messages')).body, { data: [], total: 0 });
  assert.equal(await s.daemon.service.store.queue.depth(), 0);
});

test('the From address must be an active registered address on a verified domain: 403 naming it', async (t) => {
  const s = await sending(t);
  const { service } = s.daemon;
  const r1 = await s.post({ ...ok, from: 'Someone <nobody@acme.test>' });
  assert.equal(r1.status, 403);
  assert.equal(
    r1.body.error,
    "from address 'nobody@acme.test' is not registered for this account. The domain acme.test is verified: add the address.",
  );
  const r2 = await s.post({ ...ok, from: 'x@elsewhere.test' });
  assert.equal(r2.status, 403);
  assert.match(
    r2.body.error,
    /^from address 'x@elsewhere\.test' is not registered for this account\. elsewhere\.test is not a domain of this account/,
  );
  await service.domains.add(s.ws, 'pending.test');
  await service.addresses.add(s.ws, 'me@pending.test');
  const r3 = await s.post({ ...ok, from: 'me@pending.test' });
  assert.equal(r3.status, 403);
  assert.match(r3.body.error, /The domain pending\.test is not verified yet: verify the domain first\./);
  await service.addresses.setStatus(s.ws, 'hello@acme.test', 'disabled');
  const r4 = await s.post(ok);
  assert.equal(r4.status, 403);
  assert.match(r4.body.error, /disabled/);
  // nodemailer's parser routes "x@evil.test <hello@acme.test>" to hello@acme.test: that is the address checked.
  await service.addresses.setStatus(s.ws, 'hello@acme.test', 'active');
  const r5 = await s.post({ ...ok, from: '"x@evil.test" <hello@acme.test>' });
  assert.equal(r5.status, 202);
  await s.sink.waitFor(1);
  assert.match(s.sink.received[0]!.from, /^bounces\+[0-9a-f]{32}@acme\.test$/);
  assert.match(
    s.sink.received[0]!.raw.toString()
      .match(/^From: (.*)$/m)![1]!
      .trim(),
    /<hello@acme\.test>$/,
  );
});

test('scopes: send is needed to send; read or send to read the log (403 names read)', async (t) => {
  const s = await sending(t);
  const { service } = s.daemon;
  const readOnly = (await service.keys.create(s.ws, { scopes: 'read' })).key;
  const news = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
  const sendOnly = (await service.keys.create(s.ws, { scopes: 'send' })).key;
  assert.deepEqual(await s.post(ok, readOnly).then((r) => [r.status, r.body.error]), [403, 'missing permission: send']);
  assert.deepEqual(await s.get('/api/v2/messages', news).then((r) => [r.status, r.body.error]), [403, 'missing permission: read']);
  assert.equal((await s.get('/api/v2/messages', sendOnly)).status, 200);
  assert.equal((await s.get('/api/v2/messages', readOnly)).status, 200);
  assert.equal(
    (await fetch(`${s.api}/api/v2/emails`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status,
    401,
  );
});

test('trial workspaces send only once SPF, DKIM and DMARC pass', async (t) => {
  const s = await sending(t, { plan: 'trial' });
  assert.equal((await s.post(ok)).status, 202);
  // DKIM disappears and the daemon's re-check notices: the domain stays verified, sending stops.
  s.dns.setVars('acme.test', { dkim: 'v=DKIM1; k=rsa; p=' });
  await s.daemon.service.domains.recheckAll();
  const r = await s.post(ok);
  assert.equal(r.status, 403);
  assert.match(r.body.error, /trial workspaces send only once SPF, DKIM and DMARC of acme\.test pass \(failing: DKIM\)/);
  await s.daemon.service.workspaces.setPlan('acme', 'starter');
  assert.equal((await s.post(ok)).status, 202);
});

test('a verified domain whose DKIM record broke: its mail goes unsigned and /healthz names a dkim fault until the record is fixed', async (t) => {
  const s = await sending(t);
  const recheck = s.daemon.workers.find((w) => w.name === 'domain-recheck')!;
  const health = async () =>
    (await fetch(`${s.api}/healthz`)).json() as Promise<{ ok: boolean; faults?: Array<{ kind: string; detail: string }> }>;
  const signed = (n: number) => /^DKIM-Signature:/im.test(s.sink.received[n - 1]!.raw.toString('latin1').split('\r\n\r\n')[0]!);
  assert.equal((await s.post(ok)).status, 202);
  await s.sink.waitFor(1);
  assert.ok(signed(1));
  const { records } = await s.daemon.service.domains.show(s.ws, 'acme.test');
  s.dns.setVars('acme.test', { dkim: 'v=DKIM1; k=rsa; p=' });
  await recheck.runOnce();
  const broken = await health();
  assert.equal(broken.ok, true);
  assert.deepEqual(
    broken.faults?.map((f) => f.kind),
    ['dkim'],
  );
  assert.match(broken.faults![0]!.detail, /the DKIM record of acme\.test no longer checks out: mail from it goes unsigned/);
  assert.equal((await s.post(ok)).status, 202);
  await s.sink.waitFor(2);
  assert.ok(!signed(2), 'no signature with a key receivers cannot find');
  publish(s.dns, 'acme.test', records);
  await recheck.runOnce();
  assert.equal((await health()).faults, undefined);
  assert.equal((await s.post(ok)).status, 202);
  await s.sink.waitFor(3);
  assert.ok(signed(3));
});
