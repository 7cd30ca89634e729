// The SMTP relay over real sockets: every reply code of the spec, the hardening, the mapping of a
// message to a send, and three real clients (raw socket, nodemailer, Python's smtplib).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, spawn } from 'node:child_process';
import { connect } from 'node:net';
import nodemailer from 'nodemailer';
import PostalMime from 'postal-mime';
import { sending, settled, type Sending } from '../helpers/sending.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';
import { headers, verifyDkim } from '../helpers/sink.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

async function relay(t: { after(fn: () => unknown): void }, env: Record<string, string> = {}) {
  const s = await sending(t, { env });
  return { s, url: s.daemon.url('relay') };
}

async function authed(s: Sending, url: string, key = s.key) {
  const { client } = await RawSmtp.open(url);
  await client.cmd('EHLO client.test');
  assert.equal(await client.cmd(`AUTH PLAIN ${plain(key)}`), '235 2.7.0 Authentication successful');
  return client;
}

/** The relay's 250 after DATA: it names the first recipient's message record. */
const QUEUED = /^250 2\.0\.0 OK: queued as [0-9a-f-]{36}$/;

const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');

test('reply codes: greeting, EHLO, AUTH, MAIL, RCPT, DATA, RSET, NOOP, QUIT', async (t) => {
  const { s, url } = await relay(t);
  const { client, greeting } = await RawSmtp.open(url);
  assert.match(greeting[0]!, /^220 /);
  const ehlo = await client.cmd('EHLO client.test');
  for (const cap of ['AUTH PLAIN LOGIN', 'STARTTLS', 'SIZE 26214400', 'PIPELINING']) assert.ok(ehlo.includes(cap), cap);
  assert.equal(await client.cmd('MAIL FROM:<hello@acme.test>'), '530 5.7.0 Authentication required');
  assert.equal(await client.cmd('BOGUS'), '502 5.5.2 Unknown command');
  assert.equal(await client.cmd('AUTH CRAM-MD5'), '504 5.5.4 Authentication mechanism not supported: use PLAIN or LOGIN');
  assert.equal(await client.cmd('AUTH PLAIN %%%'), '501 5.5.2 Invalid base64 in AUTH argument');
  assert.equal(await client.cmd(`AUTH PLAIN ${plain('not-a-key')}`), '535 5.7.8 Authentication credentials invalid (not an API key)');
  client.destroy();

  const readOnly = (await s.daemon.service.keys.create(s.ws, { scopes: 'read' })).key;
  const c2 = (await RawSmtp.open(url)).client;
  await c2.cmd('EHLO x');
  assert.equal(
    await c2.cmd(`AUTH PLAIN ${plain('svc_' + 'f'.repeat(48))}`),
    '535 5.7.8 Authentication credentials invalid (invalid or revoked key)',
  );
  assert.equal(await c2.cmd(`AUTH PLAIN ${plain(readOnly)}`), '535 5.7.8 Authentication credentials invalid (missing send scope)');
  // AUTH LOGIN, the username ignored.
  assert.match(await c2.cmd('AUTH LOGIN'), /^334 /);
  assert.match(await c2.cmd(Buffer.from('whoever').toString('base64')), /^334 /);
  assert.equal(await c2.cmd(Buffer.from(s.key).toString('base64')), '235 2.7.0 Authentication successful');
  assert.equal(await c2.cmd('RCPT TO:<jane@rcpt.test>'), '503 5.5.1 Commands out of order: need MAIL command');
  assert.equal(await c2.cmd('MAIL FROM:hello@acme.test'), '501 5.5.4 Invalid FROM or TO address: angle brackets expected');
  assert.equal(await c2.cmd('MAIL FROM:<nobody@acme.test>'), '553 5.7.1 Sender not authorized');
  assert.match(await c2.cmd('MAIL FROM:<hello@acme.test>'), /^250 /);
  assert.equal(await c2.cmd('RCPT TO:jane@rcpt.test'), '501 5.5.4 Invalid FROM or TO address: angle brackets expected');
  assert.match(await c2.cmd('RCPT TO:<jane@rcpt.test>'), /^250 /);
  assert.match(await c2.cmd('NOOP'), /^250 /);
  assert.match(await c2.cmd('RSET'), /^250 /);
  assert.match(await c2.cmd('DATA'), /^503 5\.5\.1 Commands out of order: need (MAIL|RCPT) command$/);
  await c2.cmd('MAIL FROM:<hello@acme.test>');
  await c2.cmd('RCPT TO:<jane@rcpt.test>');
  assert.match(await c2.cmd('DATA'), /^354 /);
  const queued = await c2.cmd(crlf('Subject: hi\nTo: jane@rcpt.test\n\nhello\n.'));
  assert.match(queued, QUEUED);
  assert.match(await c2.cmd('QUIT'), /^221 /);
  const m = (await s.get('/api/v2/messages?recipient=jane')).body.data[0];
  assert.equal(m.subject, 'hi');
  assert.equal(queued, `250 2.0.0 OK: queued as ${m.id}`, "the 250 names the first recipient's record");
  assert.equal((await settled(s, m.id)).status, 'sent');
});

test('the relay greets at once: a client that sends EHLO with its connect is answered, not refused as an early talker (the MX refuses it)', async (t) => {
  const { url } = await relay(t);
  // smtp-server pauses 100 ms before its greeting and refuses a command sent in that pause with 421;
  // the relay has no pause (its connections greet at once: daemon/smtp/server.ts), so the command
  // is read after the greeting.
  const got = await new Promise<string>((resolve, reject) => {
    let text = '';
    const sock = connect(Number(new URL(url).port), '127.0.0.1', () => sock.write('EHLO early.test\r\nQUIT\r\n'));
    sock.on('data', (d) => (text += d.toString()));
    sock.on('close', () => resolve(text));
    sock.on('error', reject);
  });
  const lines = got.trimEnd().split('\r\n');
  assert.match(lines[0]!, /^220 /);
  assert.ok(
    lines.some((l) => /^250[ -]/.test(l)),
    got,
  );
  assert.match(lines.at(-1)!, /^221 /);
});

test('1,001 recipients: the last gets 452 4.5.3; SIZE over 25 MB at MAIL and a 26 MB DATA get 552 5.3.4', async (t) => {
  const { s, url } = await relay(t);
  const c = await authed(s, url);
  assert.equal(await c.cmd('MAIL FROM:<hello@acme.test> SIZE=30000000'), '552 5.3.4 Message too big: 25 MB at most');
  assert.match(await c.cmd('MAIL FROM:<hello@acme.test> SIZE=1000'), /^250 /);
  let last = '';
  for (let i = 0; i < 1000; i++) {
    last = await c.cmd(`RCPT TO:<r${i}@rcpt.test>`);
    assert.match(last, /^250 /, `rcpt ${i}`);
  }
  assert.equal(await c.cmd('RCPT TO:<one-too-many@rcpt.test>'), '452 4.5.3 Too many recipients');
  await c.cmd('RSET');
  await c.cmd('MAIL FROM:<hello@acme.test>');
  await c.cmd('RCPT TO:<big@rcpt.test>');
  assert.match(await c.cmd('DATA'), /^354 /);
  const line = 'x'.repeat(998) + '\r\n';
  const r = c.reply();
  c.write('Subject: big\r\n\r\n');
  const chunk = line.repeat(1024);
  for (let sent = 0; sent < 26 * 1024 * 1024; sent += chunk.length) c.write(chunk);
  c.write('.\r\n');
  assert.equal((await r).join('\n'), '552 5.3.4 Message too big: 25 MB at most');
  assert.equal((await s.get('/api/v2/messages')).body.total, 0);
});

test('the message is read after the 250, not before: one postal-mime cannot read is queued, then bounced with the reason and nobody suppressed', async (t) => {
  const { s, url } = await relay(t);
  const c = await authed(s, url);
  await c.cmd('MAIL FROM:<hello@acme.test>');
  await c.cmd('RCPT TO:<deep@rcpt.test>');
  assert.match(await c.cmd('DATA'), /^354 /);
  // 300 nested multiparts, past postal-mime's nesting limit: only the header block is read before the 250.
  let body = 'x';
  for (let i = 300; i > 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}\r\n--b${i}--`;
  assert.match(await c.cmd(`To: deep@rcpt.test\r\nSubject: deep\r\n${body}\r\n.`), QUEUED);
  const m = (await s.get('/api/v2/messages?recipient=deep')).body.data[0];
  assert.equal(m.subject, 'deep');
  const done = await settled(s, m.id);
  assert.equal(done.status, 'bounced');
  assert.match(done.error, /the relayed message could not be read/);
  assert.deepEqual(await s.daemon.service.store.suppressions.list(s.ws.id), []);
});

test('bare LF and CR line ends are normalised to CRLF, and a smuggling payload stays one message', async (t) => {
  const { s, url } = await relay(t);
  const c = await authed(s, url);
  await c.cmd('MAIL FROM:<hello@acme.test>');
  await c.cmd('RCPT TO:<jane@rcpt.test>');
  await c.cmd('DATA');
  // Every form of a "second message" hidden behind a lone LF or CR.
  const smuggled =
    'Subject: one\n\nfirst\n.\nMAIL FROM:<hello@acme.test>\nRCPT TO:<victim@rcpt.test>\nDATA\nSubject: two\n\nsecond\n.\r\nthird\r.\r\nend\r\n.';
  assert.match(await c.cmd(smuggled), QUEUED);
  assert.match(await c.cmd('NOOP'), /^250 /, 'the session goes on; nothing else was read as commands');
  const list = (await s.get('/api/v2/messages')).body;
  assert.equal(list.total, 1, 'one message, to the one recipient');
  assert.deepEqual([list.data[0].to, list.data[0].subject], ['jane@rcpt.test', 'one']);
  const m = await settled(s, list.data[0].id);
  assert.equal(m.status, 'sent');
  const got = s.sink.received.find((r) => r.to.includes('jane@rcpt.test'))!;
  assert.ok(!s.sink.received.some((r) => r.to.includes('victim@rcpt.test')), 'nothing went to the smuggled recipient');
  // The smuggled lines arrived as text of the one message, with CRLF line ends.
  assert.match(got.raw.toString(), /first\r\n\.\r\nMAIL FROM:<hello@acme\.test>\r\n/);
  assert.doesNotMatch(got.raw.toString(), /[^\r]\n/);
  const ehlo = await c.cmd('EHLO again');
  assert.doesNotMatch(ehlo, /SMTPUTF8/, 'UTF-8 addresses are not taken, so not advertised');
});

test('failed AUTH: the connection is closed with 421 after 3 tries; an address that keeps failing is refused', async (t) => {
  const { s, url } = await relay(t);
  const c = (await RawSmtp.open(url)).client;
  await c.cmd('EHLO x');
  for (let i = 0; i < 2; i++) assert.match(await c.cmd(`AUTH PLAIN ${plain('svc_' + '0'.repeat(48))}`), /^535 /);
  const third = c.reply();
  const closing = c.reply();
  c.write(`AUTH PLAIN ${plain('svc_' + '0'.repeat(48))}\r\n`);
  assert.match((await third).join(), /^535 /);
  assert.equal((await closing).join(), '421 4.7.0 Too many failed authentication attempts, closing connection');
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(c.closed);
  // Three connections of three failures, then ten failures from this address: refused at connect.
  for (let k = 0; k < 3; k++) {
    const x = (await RawSmtp.open(url)).client;
    await x.cmd('EHLO x');
    for (let i = 0; i < 3; i++) await x.cmd(`AUTH PLAIN ${plain('svc_' + '0'.repeat(48))}`);
    x.destroy();
  }
  const refused = await RawSmtp.open(url);
  assert.equal(refused.greeting.join(), '421 4.7.0 Too many failed logins from your address, try again later');
  assert.ok(!s.logs.join('').includes(s.key));
  // Every refused login is an event of the mail log (never with the key tried); the daemon's log
  // writes a fault's repeats at most once in 10 s with a count (test/src/event-log.test.ts).
  assert.equal(s.logs.filter((l) => /warn: relay login-refused ip=127\.0\.0\.1 reply="535 5\.7\.8/.test(l)).length, 12);
});

test('STARTTLS then AUTH; bytes pipelined before STARTTLS do not survive into TLS', async (t) => {
  const { s, url } = await relay(t);
  const c = (await RawSmtp.open(url)).client;
  await c.cmd('EHLO x');
  assert.match(await c.starttls(), /^220 /);
  assert.ok(c.secure);
  const ehlo = await c.cmd('EHLO x');
  assert.ok(ehlo.includes('AUTH PLAIN LOGIN') && !ehlo.includes('STARTTLS'));
  assert.equal(await c.cmd(`AUTH PLAIN ${plain(s.key)}`), '235 2.7.0 Authentication successful');

  // Plaintext "NOOP " sent right behind STARTTLS, then "EHLO x" inside TLS: it must be read as an
  // EHLO (the plaintext was dropped), never as "NOOP EHLO x".
  const d = (await RawSmtp.open(url)).client;
  await d.cmd('EHLO x');
  assert.match(await d.starttls('NOOP '), /^220 /);
  const inside = await d.cmd('EHLO x');
  assert.ok(inside.includes('AUTH PLAIN LOGIN'), inside);
  d.destroy();
});

test('mapping: To/Cc shown, other RCPTs bcc; multipart parsed; attachments and inline images intact; no tracking pixel; DKIM-signed', async (t) => {
  const { s, url } = await relay(t);
  const c = await authed(s, url);
  await c.cmd('MAIL FROM:<hello@acme.test>');
  for (const r of ['jane@rcpt.test', 'bob@rcpt.test', 'hidden@rcpt.test']) await c.cmd(`RCPT TO:<${r}>`);
  await c.cmd('DATA');
  const msg = crlf(`From: "Spoofed" <ceo@evil.test>
Reply-To: phish@evil.test
To: Jane <jane@rcpt.test>
Cc: bob@rcpt.test
Bcc: hidden@rcpt.test
X-Custom: dropped
Subject: =?UTF-8?B?R3LDvMOfZQ==?=
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mix"

--mix
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8

Plain words
--alt
Content-Type: multipart/related; boundary="rel"

--rel
Content-Type: text/html; charset=utf-8

<p>HTML words</p><img src="cid:logo@acme">
--rel
Content-Type: image/png
Content-ID: <logo@acme>
Content-Disposition: inline
Content-Transfer-Encoding: base64

iVBORw0KGgo=
--rel--
--alt--
--mix
Content-Type: application/pdf; name="a.pdf"
Content-Disposition: attachment; filename="a.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQK
--mix--
.`);
  assert.match(await c.cmd(msg), QUEUED);
  // One copy for all three, each recipient in a transaction of its own (its own return path).
  await s.sink.waitFor(3);
  assert.deepEqual(s.sink.received.flatMap((x) => x.to).sort(), ['bob@rcpt.test', 'hidden@rcpt.test', 'jane@rcpt.test']);
  assert.equal(new Set(s.sink.received.map((x) => x.raw.toString('base64'))).size, 1);
  const got = s.sink.received[0]!;
  const h = headers(got.raw);
  const raw = got.raw.toString();
  assert.equal(h.get('from')![0], 'hello@acme.test');
  assert.equal(h.get('to')![0], 'jane@rcpt.test');
  assert.equal(h.get('cc')![0], 'bob@rcpt.test');
  for (const gone of ['bcc', 'reply-to', 'x-custom']) assert.ok(!h.has(gone), gone);
  assert.ok(!raw.includes('hidden@rcpt.test') && !raw.includes('evil.test'));
  assert.match(raw, /Plain words/);
  assert.match(raw, /HTML words/);
  // The PDF and the inline image arrive whole; the HTML still points at the image; no pixel.
  const parsed = await PostalMime.parse(got.raw);
  assert.deepEqual(
    parsed.attachments
      .map((a) => [
        a.mimeType,
        a.disposition,
        a.disposition === 'attachment' ? a.filename : a.contentId,
        Buffer.from(a.content as ArrayBuffer).toString('base64'),
      ])
      .sort(),
    [
      ['application/pdf', 'attachment', 'a.pdf', 'JVBERi0xLjQK'],
      ['image/png', 'inline', '<logo@acme>', 'iVBORw0KGgo='],
    ],
  );
  assert.match(parsed.html!, /cid:logo@acme/);
  assert.doesNotMatch(raw, /\/t\/o\//, 'relay mail is not tracked');
  assert.equal((await verifyDkim(got.raw, s.dns.server))[0]!.status.result, 'pass');
  const logged = (await s.get('/api/v2/messages?recipient=hidden')).body.data[0];
  const full = (await s.get(`/api/v2/messages/${logged.id}`)).body;
  assert.equal(full.subject, 'Grüße');
  assert.deepEqual(full.notes, []);
});

const python = spawnSync('python3', ['--version']).status === 0;

/** Each attachment as Python's email package decodes it (canonical bytes, RFC 2045): [filename, Content-Type, bytes as hex]. */
function pythonAttachments(raw: Buffer): Array<[string, string, string]> {
  const script = `
import email, json, sys
from email import policy
m = email.message_from_bytes(sys.stdin.buffer.read(), policy=policy.default)
print(json.dumps([[p.get_filename(), p.get_content_type() + ';' + (p.get_param('charset') or ''), p.get_payload(decode=True).hex()] for p in m.walk() if p.get_filename()]))
`;
  const r = spawnSync('python3', ['-c', script], { input: raw, timeout: 20_000 });
  assert.equal(r.status, 0, String(r.stderr));
  return JSON.parse(String(r.stdout));
}

test(
  "text attachments arrive byte for byte with their charset (7bit, quoted-printable, 8bit, a calendar), read back by Python's email package",
  { skip: python ? false : 'python3 is not on this machine' },
  async (t) => {
    const { s, url } = await relay(t);
    const c = await authed(s, url);
    await c.cmd('MAIL FROM:<hello@acme.test> BODY=8BITMIME');
    await c.cmd('RCPT TO:<jane@rcpt.test>');
    await c.cmd('DATA');
    const part = (name: string, type: string, cte: string, body: string) =>
      `--mix\r\nContent-Type: ${type}; name="${name}"\r\nContent-Transfer-Encoding: ${cte}\r\nContent-Disposition: attachment; filename="${name}"\r\n\r\n${body}\r\n`;
    const message = Buffer.from(
      'From: hello@acme.test\r\nTo: jane@rcpt.test\r\nSubject: files\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="mix"\r\n\r\n' +
        '--mix\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nsee the files\r\n' +
        // A file with no final newline, one with two, one whose QP ends in a soft break, Latin-1 raw.
        part('notes.txt', 'text/plain; charset=us-ascii', '7bit', 'line one\r\nline two') +
        part('blank.txt', 'text/plain; charset=us-ascii', '7bit', 'ends in two\r\n\r\n') +
        part(
          'cafe.txt',
          'text/plain; charset=iso-8859-1; format=flowed',
          'quoted-printable',
          'caf=E9 cr=C3=A8me=20\r\nno newline at the end=',
        ) +
        part('raw.txt', 'text/plain; charset=iso-8859-1', '8bit', 'na\xefve\r\nlast') +
        part('invite.ics', 'text/calendar; charset=utf-8; method=REQUEST', '7bit', 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n') +
        '--mix--\r\n.',
      'latin1',
    );
    c.write(message);
    c.write('\r\n');
    assert.match((await c.reply()).join(), QUEUED);
    await s.sink.waitFor(1);
    const sent = pythonAttachments(message);
    const got = pythonAttachments(s.sink.received[0]!.raw);
    assert.equal(sent.length, 5);
    assert.deepEqual(got, sent);
    // The parameters ride along (nodemailer adds name=).
    assert.match(
      s.sink.received[0]!.raw.toString('latin1'),
      /Content-Type: text\/plain; charset=iso-8859-1; format=flowed;\s+name=cafe\.txt/,
    );
  },
);

test('nodemailer client: STARTTLS, AUTH LOGIN, a message delivered', async (t) => {
  const { s, url } = await relay(t);
  const port = Number(new URL(url).port);
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    auth: { user: 'app', pass: s.key },
    authMethod: 'LOGIN',
    tls: { rejectUnauthorized: false },
  });
  const info = await transport.sendMail({
    from: 'hello@acme.test',
    to: 'jane@rcpt.test',
    bcc: 'secret@rcpt.test',
    subject: 'via nodemailer',
    text: 'hi',
    html: '<b>hi</b>',
  });
  assert.match(info.response, /^250 2\.0\.0 OK: queued/);
  await s.sink.waitFor(2);
  assert.deepEqual(s.sink.received.flatMap((x) => x.to).sort(), ['jane@rcpt.test', 'secret@rcpt.test']);
  for (const copy of s.sink.received) assert.ok(!copy.raw.toString().includes('secret@rcpt.test'));
  transport.close();
});

test('Python smtplib client: starttls, login, sendmail', { skip: python ? false : 'python3 is not on this machine' }, async (t) => {
  const { s, url } = await relay(t);
  const port = new URL(url).port;
  const script = `
import smtplib, ssl, sys
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
s = smtplib.SMTP('127.0.0.1', ${port}, timeout=10)
s.ehlo(); s.starttls(context=ctx); s.ehlo()
s.login('anyone', sys.argv[1])
code, msg = s.mail('hello@acme.test'); assert code == 250
s.rcpt('jane@rcpt.test')
code, msg = s.data('Subject: from python\\r\\nTo: jane@rcpt.test\\r\\n\\r\\nhello from smtplib\\r\\n')
print(code, msg.decode())
s.quit()
`;
  const child = spawn('python3', ['-c', script, s.key]);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  assert.equal(await new Promise((r) => child.on('exit', r)), 0, out);
  assert.match(out, /^250 2\.0\.0 OK: queued/);
  await s.sink.waitFor(1);
  assert.match(headers(s.sink.received[0]!.raw).get('subject')![0]!, /from python/);
});

test('revocation takes effect on the next AUTH; a message accepted before is delivered', async (t) => {
  const { s, url } = await relay(t);
  const key = await s.daemon.service.keys.create(s.ws, { scopes: 'send' });
  const c = await authed(s, url, key.key);
  await c.cmd('MAIL FROM:<hello@acme.test>');
  await c.cmd('RCPT TO:<jane@rcpt.test>');
  await c.cmd('DATA');
  assert.match(await c.cmd('Subject: before\r\n\r\nx\r\n.'), QUEUED);
  await s.daemon.service.keys.revoke(s.ws, key.id);
  const d = (await RawSmtp.open(url)).client;
  await d.cmd('EHLO x');
  assert.equal(await d.cmd(`AUTH PLAIN ${plain(key.key)}`), '535 5.7.8 Authentication credentials invalid (invalid or revoked key)');
  await s.sink.waitFor(1);
});

test('a connection that breaks during DATA queues nothing; connections end after the time limit', async (t) => {
  const { s, url } = await relay(t, { SVC_RELAY_CONNECTION_LIMIT: '1' });
  const c = await authed(s, url);
  await c.cmd('MAIL FROM:<hello@acme.test>');
  await c.cmd('RCPT TO:<jane@rcpt.test>');
  await c.cmd('DATA');
  c.write('Subject: half\r\n\r\nsome of the body');
  c.destroy();
  const d = (await RawSmtp.open(url)).client;
  await d.cmd('EHLO x');
  assert.equal((await d.reply()).join(), '421 4.4.2 Connection time limit reached, closing');
  assert.equal((await s.get('/api/v2/messages')).body.total, 0);
});

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`a key revoked while a relay session is open: the next MAIL FROM is 535 and the session ends (${backend})`, async (t) => {
    const s = await sending(t, backend === 'postgres' ? { store: pgLocation(await migratedSchemaUrl(t)) } : {});
    const url = s.daemon.url('relay');
    const fresh = await s.daemon.service.keys.create(s.ws, { scopes: 'send,read' });
    const client = await authed(s, url, fresh.key);
    const one = async (n: number) => {
      const mail = await client.cmd('MAIL FROM:<hello@acme.test>');
      if (!mail.startsWith('250')) return mail;
      await client.cmd(`RCPT TO:<r${n}@rcpt.test>`);
      await client.cmd('DATA');
      return client.cmd(`Subject: r${n}\r\nTo: r${n}@rcpt.test\r\n\r\nhello\r\n.`);
    };
    assert.match(await one(1), QUEUED);
    // Revoked through the same path as `svc keys revoke` (the daemon's store, or Postgres + NOTIFY).
    await s.daemon.service.keys.revoke(s.ws, fresh.id);
    let reply = '';
    // Postgres: the other connection's NOTIFY reaches the cache within moments.
    for (let i = 0; i < 50; i++) {
      reply = await one(2 + i);
      if (reply.startsWith('535')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(reply, '535 5.7.8 Authentication credentials invalid (invalid or revoked key)');
    assert.deepEqual(await client.reply(), [], 'the session was closed');
    assert.ok(client.closed);
  });
}
