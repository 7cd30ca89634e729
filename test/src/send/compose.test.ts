import { test } from 'node:test';
import assert from 'node:assert/strict';
import MailComposer from 'nodemailer/lib/mail-composer';
import PostalMime from 'postal-mime';
import { compose, copiesOf } from '../../../src/send/compose/index.js';
import { wrapHtml } from '../../../src/send/compose/document.js';
import { textFromHtml } from '../../../src/send/compose/text.js';
import { addPixel, pixelUrl } from '../../../src/send/compose/tracking.js';
import type { Message, OutboundJob, SendContent } from '../../../src/model/message.js';

const copy = { recipients: ['jane@rcpt.test'], token: 'tok123' };
const content = (html: string | null, text: string | null): SendContent => ({
  id: 'c', workspace_id: 'w', source: 'api', from: 'hello@acme.test', from_name: 'Ácme', domain_id: 'd',
  to: [{ name: 'Jane', address: 'jane@rcpt.test' }], cc: [], subject: 'Grüße', html, text, message_id: 'm1@acme.test', notes: [], created_at: '2026-11-22T10:00:00.000Z',
});

/** MailComposer encoding both parts itself: what compose() must produce byte for byte. */
async function reference(c: SendContent): Promise<Buffer> {
  const html = c.html === null ? undefined : addPixel(wrapHtml(c.html, c.subject), pixelUrl('http://svc.test', copy.token));
  const text = c.text ?? (c.html !== null ? textFromHtml(c.html) : undefined);
  return new MailComposer({
    from: { name: c.from_name!, address: c.from }, to: [{ name: 'Jane', address: 'jane@rcpt.test' }], subject: c.subject, date: new Date(c.created_at), messageId: `<${c.message_id}>`,
    headers: { 'Feedback-ID': `${c.source}:${c.workspace_id}:svc` },
    ...(text !== undefined ? { text } : {}), ...(html !== undefined ? { html } : {}), textEncoding: 'quoted-printable',
  }).compile().build();
}

// Boundaries are random per build.
const norm = (b: Buffer) => b.toString('latin1').replace(/_NmP-[0-9a-f-]+/gi, 'BOUNDARY');

const cases: Array<[string, string | null, string | null]> = [
  ['short ASCII html, generated text (7bit parts)', '<p>Hi</p>', null],
  ['long lines (quoted-printable)', `<p>${'word '.repeat(60)}</p>`, null],
  ['non-ASCII in both', '<p>Grüße, 世界 ✓</p>', 'Grüße, 世界 ✓\n'],
  ['LF and CRLF line ends, trailing spaces, leading dots', '<pre>a  \n.b\r\n c \t</pre>', 'x  \n.dot\r\ny \t\n'],
  ['text only', null, 'only text ü'],
  ['html only, given text empty', '<p>x</p>', ''],
];

for (const [name, html, text] of cases) {
  test(`compose: the message equals MailComposer's own encoding (${name})`, async () => {
    const c = content(html, text);
    const ours = await compose(c, copy, 'http://svc.test');
    assert.equal(norm(ours.raw), norm(await reference(c)));
  });
}

test('compose: past 64 KB the parts decode to what MailComposer encodes, in lines of at most 76', async () => {
  const c = content(`<p>${'a=b&c=d ü '.repeat(20_000)}</p>`, null);
  const ours = (await compose(c, copy, 'http://svc.test')).raw;
  const [a, b] = await Promise.all([PostalMime.parse(ours), PostalMime.parse(await reference(c))]);
  assert.equal(a.text, b.text);
  assert.equal(a.html, b.html);
  assert.ok(ours.toString('latin1').split(/\r?\n/).every((l: string) => l.length <= 76));
});

test('relayed content (raw): its text, HTML and attachments are read when composed, not before; the record keeps no body', async () => {
  const raw = [
    'To: jane@rcpt.test', 'Subject: relayed', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b1"', '',
    '--b1', 'Content-Type: multipart/alternative; boundary="b2"', '',
    '--b2', 'Content-Type: text/plain; charset=utf-8', '', 'plain words', '--b2', 'Content-Type: text/html; charset=utf-8', '', '<p>html words</p>', '--b2--',
    '--b1', 'Content-Type: application/pdf; name="a.pdf"', 'Content-Disposition: attachment; filename="a.pdf"', 'Content-Transfer-Encoding: base64', '', Buffer.from('%PDF-1.4 bytes').toString('base64'), '--b1--', '',
  ].join('\r\n');
  const c: SendContent = { ...content(null, null), source: 'relay', raw: Buffer.from(raw).toString('base64') };
  const out = await compose(c, copy, 'http://svc.test');
  const parsed = await PostalMime.parse(out.raw);
  assert.equal(parsed.text?.trim(), 'plain words');
  assert.match(parsed.html ?? '', /html words/);
  assert.equal(parsed.attachments.length, 1);
  assert.equal(Buffer.from(parsed.attachments[0]!.content as ArrayBuffer).toString(), '%PDF-1.4 bytes');
  // No pixel on relay mail, and nothing of the raw message's own headers but what the steps wrote.
  assert.doesNotMatch(out.raw.toString(), /\/t\/o\//);
  assert.equal(c.html, null, 'the stored content is left as it was');
});

test('a relayed message postal-mime cannot read is poison: bounced with the reason, never retried', async () => {
  // 300 nested multiparts: past postal-mime's nesting limit (256), which it refuses with an error.
  const depth = 300;
  let body = 'x';
  for (let i = depth; i > 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}\r\n--b${i}--`;
  const c: SendContent = { ...content(null, null), source: 'relay', raw: Buffer.from(`Subject: deep\r\n${body}\r\n`).toString('base64') };
  await assert.rejects(compose(c, copy, 'http://svc.test'), (e: Error) => e.name === 'PoisonMessage' && /the relayed message could not be read/.test(e.message));
});
