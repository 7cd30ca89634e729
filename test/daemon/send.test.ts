// POST /api/v2/emails end to end: real HTTP in, real SMTP out to a sink, DKIM verified by mailauth
// against the fixture DNS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import libmime from 'libmime';
import { sending, settled } from '../helpers/sending.js';
import { headers, verifyDkim } from '../helpers/sink.js';

/** The decoded body of the first MIME part of this type (quoted-printable, base64 or 7bit). */
function part(raw: string, type: string): string {
  const p = raw.split(/\r?\n--[^\r\n]+\r?\n/).find((x) => new RegExp(`Content-Type: ${type}`, 'i').test(x.split(/\r?\n\r?\n/)[0]!))!;
  const [head, ...rest] = p.split(/\r?\n\r?\n/);
  const content = rest.join('\r\n\r\n').replace(/\r?\n--[^\r\n]*--\s*$/, '');
  if (/quoted-printable/i.test(head!))
    return Buffer.from(
      content.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  if (/base64/i.test(head!)) return Buffer.from(content, 'base64').toString('utf8');
  return content;
}

const body = (over: Record<string, unknown> = {}) => ({
  from: 'Acme Support <hello@acme.test>',
  to: ['jane@rcpt.test'],
  subject: 'Hello',
  body_html: '<p>Hi <a href="https://example.com/x">there</a></p>',
  ...over,
});

test('202 with the send response; the message arrives DKIM-signed with the headers of the spec', async (t) => {
  const s = await sending(t);
  const r = await s.post(
    body({ cc: ['Bob <bob@rcpt.test>'], bcc: ['secret@rcpt.test'], reply_to: 'x@y.z', attachments: [{}], template: 'ignored' }),
  );
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ['id', 'queued', 'recipient_count', 'status', 'tracking_url']);
  assert.equal(r.body.status, 'queued');
  assert.equal(r.body.queued, true);
  assert.equal(r.body.recipient_count, 3);
  assert.equal(r.body.tracking_url, `/api/v2/messages/${r.body.id}`);
  const m = await settled(s, r.body.id);
  assert.equal(m.status, 'sent');
  assert.ok(m.sent_at);
  assert.equal(m.to, 'jane@rcpt.test');

  await s.sink.waitFor(3);
  // An HTML send: a copy per recipient (each with its own pixel), each in its own transaction;
  // bcc only in its envelope, never in a header of any copy.
  assert.deepEqual(s.sink.received.map((x) => x.to).sort(), [['bob@rcpt.test'], ['jane@rcpt.test'], ['secret@rcpt.test']]);
  for (const copy of s.sink.received) assert.ok(!copy.raw.toString().includes('secret@rcpt.test'), 'bcc never in a header');
  const got = s.sink.received.find((x) => x.to[0] === 'jane@rcpt.test')!;
  // The envelope sender is the recipient's own return path: bounce reports come back to the MX and name the record.
  const janeId = (await s.get(`/api/v2/messages?recipient=jane@rcpt.test`)).body.data[0].id;
  assert.equal(got.from, `bounces+${janeId.replace(/-/g, '')}@acme.test`);
  assert.equal(got.secure, true, 'STARTTLS used when offered');
  const raw = got.raw.toString();
  const h = headers(got.raw);
  assert.equal(h.get('from')![0], 'Acme Support <hello@acme.test>');
  assert.equal(h.get('to')![0], 'jane@rcpt.test');
  assert.equal(h.get('cc')![0], 'Bob <bob@rcpt.test>');
  assert.ok(!h.has('bcc') && !raw.includes('secret@rcpt.test'), 'bcc never in a header');
  assert.ok(!h.has('reply-to'));
  assert.match(h.get('message-id')![0]!, /^<[0-9a-f-]{36}@acme\.test>$/);
  assert.equal(m.message_id, h.get('message-id')![0]!.slice(1, -1));
  assert.ok(Date.parse(h.get('date')![0]!));
  const dkim = await verifyDkim(got.raw, s.dns.server);
  assert.equal(dkim.length, 1);
  assert.equal(dkim[0]!.status.result, 'pass', JSON.stringify(dkim[0]!.status));
  assert.equal(dkim[0]!.signingDomain, 'acme.test');
  assert.equal(dkim[0]!.selector, 'svc1');
  const sig = h.get('dkim-signature')![0]!;
  assert.match(sig, /c=relaxed\/relaxed/);
  for (const f of ['from', 'to', 'cc', 'subject', 'date', 'message-id', 'mime-version', 'content-type'])
    assert.match(sig.toLowerCase(), new RegExp(`h=[^;]*\\b${f}\\b`), f);
  // The other two recipients' records are sent as well.
  const list = await s.get('/api/v2/messages?limit=10');
  assert.deepEqual(
    list.body.data.map((x: any) => x.status),
    ['sent', 'sent', 'sent'],
  );
});

test('bcc only: To: undisclosed-recipients:;', async (t) => {
  const s = await sending(t);
  const r = await s.post(body({ to: [], bcc: ['a@rcpt.test', 'b@other.test'] }));
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await s.sink.waitFor(2);
  for (const got of s.sink.received) {
    assert.deepEqual(headers(got.raw).get('to'), ['undisclosed-recipients:;']);
    assert.equal((await verifyDkim(got.raw, s.dns.server))[0]!.status.result, 'pass');
    assert.ok(!got.raw.toString().includes('a@rcpt.test') && !got.raw.toString().includes('b@other.test'));
  }
  assert.deepEqual(
    s.sink.received
      .map((x) => x.to)
      .flat()
      .sort(),
    ['a@rcpt.test', 'b@other.test'],
  );
});

test('non-ASCII subject round trip, fragment wrapped, text generated, pixel in the HTML only', async (t) => {
  const s = await sending(t);
  const subject = 'Grüße aus Köln — 日本語 ✓';
  const r = await s.post(body({ subject, body_html: '<h1>Hallo</h1><p>Schön, <a href="https://example.com/a?b=1">hier</a>!</p>' }));
  assert.equal(r.status, 202);
  await s.sink.waitFor(1);
  const raw = s.sink.received[0]!.raw.toString();
  const h = headers(s.sink.received[0]!.raw);
  assert.match(h.get('subject')![0]!, /^=\?UTF-8\?/);
  assert.equal(libmime.decodeWords(h.get('subject')![0]!), subject);
  const html = part(raw, 'text/html');
  const text = part(raw, 'text/plain');
  assert.match(html, /^<!DOCTYPE html>/);
  assert.match(html, /<body>[\s\S]*<h1>Hallo<\/h1>[\s\S]*<\/body>/);
  assert.ok(html.includes('href="https://example.com/a?b=1"'), 'links are not rewritten');
  const pixel = /<img src="(http:\/\/127\.0\.0\.1:\d+\/t\/o\/([A-Za-z0-9_-]{24})\.gif)"/.exec(html);
  assert.ok(pixel, 'open-tracking pixel to the base URL');
  assert.match(text, /HALLO/);
  assert.match(text, /Schön, hier \[https:\/\/example\.com\/a\?b=1\]!/);
  assert.ok(!text.includes('/t/o/'), 'no pixel in the text part');
  // Another message gets another pixel.
  await s.post(body());
  await s.sink.waitFor(2);
  assert.ok(!s.sink.received[1]!.raw.toString().includes(pixel[2]!));
});

test('body_text only: a single text part, no pixel', async (t) => {
  const s = await sending(t);
  assert.equal((await s.post(body({ body_html: undefined, body_text: 'plain words' }))).status, 202);
  await s.sink.waitFor(1);
  const raw = s.sink.received[0]!.raw.toString();
  assert.match(raw, /Content-Type: text\/plain/);
  assert.ok(!/text\/html/.test(raw));
  assert.match(raw, /plain words/);
});
