// What mail software expects of svc's SMTP listeners (CONTRACT.md "What mail software expects of
// svc"), over raw sessions: ENHANCEDSTATUSCODES advertised, SMTPUTF8 and other unadvertised
// parameters answered 555, the domainless postmaster taken, the MX's reverse look-up through
// --dns-server (banner and Received:), a forged Authentication-Results under our authserv-id
// removed, and the relay's 250 naming the message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { RawSmtp } from '../helpers/smtp-client.js';
import { plainMail, transact } from '../helpers/mx.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

test('MX and relay: ENHANCEDSTATUSCODES advertised; SMTPUTF8 and unadvertised parameters answered 555; nothing taken', async (t) => {
  const s = await sending(t);
  for (const name of ['mx', 'relay']) {
    const { client } = await RawSmtp.open(s.daemon.url(name));
    t.after(() => client.destroy());
    const ehlo = await client.cmd('EHLO client.test');
    assert.match(ehlo, /^250[- ]ENHANCEDSTATUSCODES$/m, `${name}: ${ehlo}`);
    assert.doesNotMatch(ehlo, /SMTPUTF8|DSN|REQUIRETLS/);
    if (name === 'relay') assert.match(await client.cmd(`AUTH PLAIN ${Buffer.from(`\0u\0${s.key}`).toString('base64')}`), /^235 /);
    assert.equal(await client.cmd('MAIL FROM:<> SMTPUTF8'), '555 5.5.4 SMTPUTF8 is not supported here');
    assert.equal(await client.cmd('MAIL FROM:<hello@acme.test> RET=HDRS'), '555 5.5.4 RET is not supported here');
    assert.match(await client.cmd('MAIL FROM:<hello@acme.test> BODY=8BITMIME SIZE=1000'), /^250 /, 'SIZE and BODY are advertised');
    assert.equal(await client.cmd('RCPT TO:<hello@acme.test> NOTIFY=NEVER'), '555 5.5.4 NOTIFY is not supported here');
  }
});

test('MX: RCPT TO:<postmaster> without a domain goes to the operator postmaster (the --system-sender domain)', async (t) => {
  const s = await sending(t, { env: { SVC_SYSTEM_SENDER: 'hello@acme.test' } });
  const r = await transact(s.daemon.url('mx'), 'someone@rcpt.test', ['postmaster'], plainMail('someone@rcpt.test', 'postmaster'));
  assert.deepEqual([r.rcpts[0]?.slice(0, 3), r.end.slice(0, 3)], ['250', '250']);
  const [item] = (await s.daemon.service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 1, offset: 0 })).data;
  assert.deepEqual(item?.to, ['postmaster@acme.test']);
});

test('MX: without a postmaster of the operator, RCPT TO:<postmaster> is an unknown mailbox (550), never a syntax error', async (t) => {
  const s = await sending(t);
  const r = await transact(s.daemon.url('mx'), 'someone@rcpt.test', ['postmaster'], plainMail('someone@rcpt.test', 'postmaster'));
  assert.match(r.rcpts[0]!, /^550 5\.1\.1 /);
});

test("MX: the client's PTR name comes from --dns-server (banner, Received:); a forged Authentication-Results of ours is removed", async (t) => {
  const s = await sending(t);
  s.dns.zone('$ORIGIN 0.0.127.in-addr.arpa\n1 PTR client.rcpt.test.\n');
  const mx = s.daemon.url('mx');
  const { client, greeting } = await RawSmtp.open(mx);
  t.after(() => client.destroy());
  assert.match(greeting.join('\n'), /^220 /);
  assert.match(await client.cmd('EHLO helo.rcpt.test'), /Nice to meet you, client\.rcpt\.test/);
  await client.cmd('QUIT');
  const forged = [
    'Authentication-Results: mx.svc.localhost; dkim=pass header.d=bank.test; dmarc=pass',
    'Authentication-Results: (forged)\r\n mx.svc.localhost 1;\r\n spf=pass',
    'Authentication-Results: other.example; spf=fail',
    'From: someone@rcpt.test',
    'To: hello@acme.test',
    'Subject: Question',
    '',
    'Hello.',
    '',
  ].join('\r\n');
  assert.match((await transact(mx, 'someone@rcpt.test', ['hello@acme.test'], forged)).end, /^250 /);
  const [item] = (await s.daemon.service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 1, offset: 0 })).data;
  const raw = Buffer.from((await s.daemon.service.inbox.get(s.ws, item!.id, { raw: true })).raw!, 'base64').toString('latin1');
  assert.match(raw, /^Received: from sender\.test \(client\.rcpt\.test \[127\.0\.0\.1\]\)/);
  const results = raw.split('\r\n\r\n')[0]!.match(/^Authentication-Results:.*(\r\n[ \t].*)*/gim)!;
  assert.equal(results.length, 2, results.join('\n'));
  assert.match(results[0]!, /^Authentication-Results: mx\.svc\.localhost;\r\n dkim=none .*\r\n spf=pass/, 'ours, first');
  assert.match(results[1]!, /^Authentication-Results: other\.example; spf=fail/, "another server's is kept");
  assert.doesNotMatch(raw, /bank\.test|\(forged\)/);
});

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: MX items keep the sender's display name (quoted, encoded words), shown by the API`, async (t) => {
    const s = await sending(t, backend === 'postgres' ? { store: pgLocation(await migratedSchemaUrl(t)) } : {});
    const mx = s.daemon.url('mx');
    const mail = (from: string) => `From: ${from}\r\nTo: hello@acme.test\r\nSubject: Hi\r\n\r\nHello.\r\n`;
    await transact(mx, 'jane@rcpt.test', ['hello@acme.test'], mail('"Jane Q. Doe" <jane@rcpt.test>'));
    await transact(mx, 'jurgen@rcpt.test', ['hello@acme.test'], mail('=?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <jurgen@rcpt.test>'));
    await transact(mx, 'bare@rcpt.test', ['hello@acme.test'], mail('bare@rcpt.test'));
    const items = (await s.get('/api/v2/inbox/items')).body.data as Array<{ from: string; from_name: string | null }>;
    assert.deepEqual(items.map((i) => [i.from, i.from_name]).sort(), [
      ['bare@rcpt.test', null],
      ['jane@rcpt.test', 'Jane Q. Doe'],
      ['jurgen@rcpt.test', 'Jürgen Müller'],
    ]);
  });
}

test('MX: sessions storing at once stay within the per-workspace rate (the rest 451, nothing lost)', async (t) => {
  const s = await sending(t, {
    env: { SVC_MX_RATE_PER_WORKSPACE: '20', SVC_MX_RATE_PER_SENDER: '0', SVC_MX_MAX_CONNECTIONS_PER_ADDRESS: '100' },
  });
  const mx = s.daemon.url('mx');
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      transact(mx, `s${i}@rcpt.test`, ['hello@acme.test'], plainMail(`s${i}@rcpt.test`, 'hello@acme.test', `n${i}`)),
    ),
  );
  const taken = results.filter((r) => r.end.startsWith('250')).length;
  const deferred = results.filter((r) => /^451 4\.7\.1/.test(r.end) || r.rcpts.some((x) => /^451 4\.7\.1/.test(x))).length;
  assert.equal(taken, 20);
  assert.equal(deferred, 20, 'the rest deferred, for the sender to try again');
  assert.equal((await s.daemon.service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 100, offset: 0 })).total, 20);
});

test('MX: a Content-Type comment does not get a multipart past the part limit; a long text of short lines is read in part, off the event loop', async (t) => {
  const s = await sending(t);
  const mx = s.daemon.url('mx');
  const head = 'From: someone@rcpt.test\r\nTo: hello@acme.test\r\nSubject: %s\r\n';
  const parts = Array.from({ length: 900 }, () => '--b\r\n\r\nx\r\n').join('');
  const bomb = `${head.replace('%s', 'bomb')}Content-Type: (x) multipart/mixed;\r\n boundary=b\r\n\r\n${parts}--b--\r\n`;
  assert.match((await transact(mx, 'someone@rcpt.test', ['hello@acme.test'], bomb)).end, /^250 /);
  const long = `${head.replace('%s', 'long')}Content-Type: text/plain\r\n\r\n${'a\r\n'.repeat(2_000_000)}`;
  assert.match((await transact(mx, 'someone@rcpt.test', ['hello@acme.test'], long)).end, /^250 /);
  const items = (await s.get('/api/v2/inbox/items')).body.data as Array<{ id: string; subject: string; note: string | null }>;
  const bombItem = items.find((i) => i.subject === 'bomb')!;
  assert.match(bombItem.note ?? '', /more than 500 MIME parts; kept as received, not parsed/);
  const read = (id: string) => s.get(`/api/v2/inbox/items/${id}`);
  const bombRead = await read(bombItem.id);
  assert.deepEqual([bombRead.status, bombRead.body.text], [200, null]);
  // Read while the API answers: the parse runs in its thread, on the first 100,000 lines.
  const [longRead, health] = await Promise.all([read(items.find((i) => i.subject === 'long')!.id), fetch(`${s.api}/healthz`)]);
  assert.equal(health.status, 200);
  assert.equal(longRead.status, 200);
  assert.match(longRead.body.note, /only its first \d+ KB is shown \(a long message\); the whole of it is kept \(raw\)/);
  assert.ok(longRead.body.text.length >= 150_000 && longRead.body.text.length < 300_000, String(longRead.body.text.length));
});
