// Per-recipient composition: an HTML send through the API gets one copy per recipient, each with
// its own pixel token, handed off in its own SMTP transaction, with To/Cc shown exactly as before
// and Bcc never; mail with nothing per recipient in it (text only, relay) is one copy for all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { byTo, full, handOffByHand } from '../helpers/sending.js';
import { headers, verifyDkim } from '../helpers/sink.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

const pixelToken = (html: string) => /\/t\/o\/([A-Za-z0-9_-]+)\.gif/.exec(html)?.[1];

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: an HTML send to to, cc and bcc: one signed copy each, its own token, the same headers shown`, async (t) => {
    const { s, deliver } = await handOffByHand(t, {}, backend === 'postgres' ? pgLocation(await migratedSchemaUrl(t)) : undefined);
    const r = await s.post({
      from: 'hello@acme.test',
      to: ['jane@rcpt.test'],
      cc: ['bob@rcpt.test'],
      bcc: ['carol@rcpt.test'],
      subject: 'Yours',
      body_html: '<p>Hello</p>',
    });
    assert.equal(r.status, 202);
    await deliver();
    assert.equal(s.sink.received.length, 3, 'one transaction per copy');
    const tokens = new Set<string>();
    for (const got of s.sink.received) {
      assert.equal(got.to.length, 1);
      const h = headers(got.raw);
      assert.deepEqual([h.get('to'), h.get('cc'), h.has('bcc')], [['jane@rcpt.test'], ['bob@rcpt.test'], false]);
      const parsed = await PostalMime.parse(got.raw);
      const token = pixelToken(parsed.html ?? '');
      assert.ok(token, `${got.to[0]}'s copy has a pixel`);
      tokens.add(token);
      // Signed last: the signature verifies and covers the headers the steps added.
      const dkim = await verifyDkim(got.raw, s.dns.server);
      assert.equal(dkim[0]?.status.result, 'pass', JSON.stringify(dkim[0]?.status));
      assert.match(h.get('dkim-signature')![0]!, /h=[^;]*feedback-id/i);
    }
    assert.equal(tokens.size, 3, 'every copy has a token of its own');
    const m = await byTo(s);
    for (const who of ['jane@rcpt.test', 'bob@rcpt.test', 'carol@rcpt.test']) assert.equal(m[who].status, 'sent');
    // Tokens are never shown by the API (they open another's tracking).
    assert.ok(!JSON.stringify(m).includes([...tokens][0]!));
  });
}

test('a text-only send to three recipients of one domain is one copy: a transaction per recipient (verp), or one for all (--return-path from)', async (t) => {
  const { s, deliver } = await handOffByHand(t);
  assert.equal(
    (await s.post({ from: 'hello@acme.test', to: ['a@rcpt.test', 'b@rcpt.test'], bcc: ['c@rcpt.test'], subject: 'Plain', body_text: 'hi' }))
      .status,
    202,
  );
  await deliver();
  assert.deepEqual(
    s.sink.received.map((x) => x.to),
    [['a@rcpt.test'], ['b@rcpt.test'], ['c@rcpt.test']],
  );
  assert.equal(new Set(s.sink.received.map((x) => x.raw.toString('base64'))).size, 1, 'one copy');
  const ids = await byTo(s);
  assert.deepEqual(
    s.sink.received.map((x) => x.from),
    ['a', 'b', 'c'].map((r) => `bounces+${ids[`${r}@rcpt.test`].id.replace(/-/g, '')}@acme.test`),
  );

  const from = await handOffByHand(t, { SVC_RETURN_PATH: 'from' });
  assert.equal(
    (
      await from.s.post({
        from: 'hello@acme.test',
        to: ['a@rcpt.test', 'b@rcpt.test'],
        bcc: ['c@rcpt.test'],
        subject: 'Plain',
        body_text: 'hi',
      })
    ).status,
    202,
  );
  await from.deliver();
  assert.equal(from.s.sink.received.length, 1);
  assert.deepEqual([...from.s.sink.received[0]!.to].sort(), ['a@rcpt.test', 'b@rcpt.test', 'c@rcpt.test']);
  assert.equal(from.s.sink.received[0]!.from, 'hello@acme.test');
});

test('a recipient domain that cannot be reached is tried once for all its copies', async (t) => {
  const { s, deliver } = await handOffByHand(t);
  s.sink.greeting = { code: 421, message: '4.3.2 Service not available, closing channel' };
  assert.equal(
    (await s.post({ from: 'hello@acme.test', to: ['a@rcpt.test', 'b@rcpt.test', 'c@rcpt.test'], subject: 'Html', body_html: '<p>x</p>' }))
      .status,
    202,
  );
  await deliver();
  const listed = await byTo(s);
  const m = Object.fromEntries(
    await Promise.all(Object.entries(listed).map(async ([to, x]) => [to, await full(s, (x as { id: string }).id)])),
  );
  for (const who of ['a@rcpt.test', 'b@rcpt.test', 'c@rcpt.test']) {
    assert.equal(m[who].status, 'queued');
    assert.equal(m[who].attempts, 1);
  }
  // Refused at the greeting: the other copies were not taken there again.
  assert.equal(s.sink.connections, 1);
  assert.equal(m['a@rcpt.test'].last_error, m['c@rcpt.test'].last_error);
});
