import { test } from 'node:test';
import assert from 'node:assert/strict';
import MailComposer from 'nodemailer/lib/mail-composer';
import PostalMime from 'postal-mime';
import { compose, copiesOf } from '../../../src/send/compose/index.js';
import { hasLineOver76 } from '../../../src/send/compose/mime.js';
import { hasLongerLines } from 'nodemailer/lib/mime-funcs';
import { wrapHtml } from '../../../src/send/compose/document.js';
import { textFromHtml } from '../../../src/send/compose/text.js';
import { addPixel, pixelUrl } from '../../../src/send/compose/tracking.js';
import type { Message, OutboundJob, SendContent } from '../../../src/model/message.js';

const copy = { recipients: ['jane@rcpt.test'], token: 'tok123' };
const content = (html: string | null, text: string | null): SendContent => ({
  id: 'c',
  workspace_id: 'w',
  source: 'api',
  from: 'hello@acme.test',
  from_name: 'Ácme',
  domain_id: 'd',
  to: [{ name: 'Jane', address: 'jane@rcpt.test' }],
  cc: [],
  subject: 'Grüße',
  html,
  text,
  message_id: 'm1@acme.test',
  notes: [],
  created_at: '2026-11-22T10:00:00.000Z',
});

/** MailComposer encoding both parts itself: what compose() must produce byte for byte. */
async function reference(c: SendContent): Promise<Buffer> {
  const html = c.html === null ? undefined : addPixel(wrapHtml(c.html, c.subject), pixelUrl('http://svc.test', copy.token));
  const text = c.text ?? (c.html !== null ? textFromHtml(c.html) : undefined);
  return new MailComposer({
    from: { name: c.from_name!, address: c.from },
    to: [{ name: 'Jane', address: 'jane@rcpt.test' }],
    subject: c.subject,
    date: new Date(c.created_at),
    messageId: `<${c.message_id}>`,
    headers: { 'Feedback-ID': `${c.source}:${c.workspace_id}:svc` },
    ...(text !== undefined ? { text } : {}),
    ...(html !== undefined ? { html } : {}),
    textEncoding: 'quoted-printable',
  })
    .compile()
    .build();
}

// Boundaries are random per build.
const norm = (b: Buffer) => b.toString('latin1').replace(/_NmP-[0-9a-f-]+/gi, 'BOUNDARY');

const cases: Array<[string, string | null, string | null]> = [
  ['short ASCII html, generated text (7bit parts)', '<p>Hi</p>', null],
  ['long lines (quoted-printable)', `<p>${'word '.repeat(60)}</p>`, null],
  ['non-ASCII in both', '<p>Grüße, 世界 ✓</p>', 'Grüße, 世界 ✓\n'],
  ['LF and CRLF line ends, trailing spaces, leading dots', '<pre>a  \n.b\r\n c \t</pre>', 'x  \n.dot\r\ny \t\n'],
  // 7bit up to 76 characters a line, quoted-printable from 77 (hasLineOver76 against MailComposer's own test).
  ['a 76-character line', `<pre>${'x'.repeat(76)}</pre>`, `${'y'.repeat(76)}\r\nz`],
  ['a 77-character line', `<pre>${'x'.repeat(77)}</pre>`, `${'y'.repeat(77)}`],
  ['lines ended by a lone CR', `<pre>${'x'.repeat(70)}\r${'x'.repeat(70)}</pre>`, `${'y'.repeat(70)}\r${'y'.repeat(70)}`],
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

// Written by the unpatched html-to-text: our patch of its element picker (patches/@selderee+...)
// must pick the same format for every element (headings upper-cased, a link's address once,
// images skipped, lists, quotes, rules of the wrap width, preformatted text kept).
test('textFromHtml: every element gets the format html-to-text picks for it, lines wrapped at 76', () => {
  const html =
    '<h1>Title</h1><h2>Sub</h2><p>Hello <b>there</b>, <a href="https://example.com/">https://example.com/</a> and <a href="https://example.com/x">a link</a>.</p><img src="https://example.com/i.png" alt="pic"><ul><li>one</li><li>two</li></ul><ol><li>first</li></ol><blockquote>quoted</blockquote><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table><hr><pre>  pre  kept</pre><div>div<br>break</div><p class="x" id="y">classed <a name="n">anchor without href</a></p>';
  assert.equal(
    textFromHtml(html),
    'TITLE\n\n\nSUB\n\nHello there, https://example.com/ and a link [https://example.com/x].\n\n * one\n * two\n\n 1. first\n\n> quoted\n\nAB12\n\n----------------------------------------------------------------------------\n\n  pre  kept\n\ndiv\nbreak\n\nclassed anchor without href',
  );
  // 77 characters in all: one line at RFC 5322's 78, two at 76.
  assert.equal(textFromHtml(`<p>${'x'.repeat(72)} bcde</p>`), `${'x'.repeat(72)}\nbcde`);
});

test("compose: hasLineOver76 answers as nodemailer's hasLongerLines(s, 76) on 20,000 random texts", () => {
  // Seeded, so a failure reproduces: lines of 60 to 90 characters ended by CR, LF, CRLF or U+2028.
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const ends = ['\n', '\r', '\r\n', '\u2028', ' '];
  for (let i = 0; i < 20_000; i++) {
    let s = '';
    for (let lines = rand(4); lines >= 0; lines--) s += 'a'.repeat(60 + rand(31)) + ends[rand(ends.length)];
    assert.equal(hasLineOver76(s), hasLongerLines(s, 76), JSON.stringify(s));
  }
  assert.equal(hasLineOver76('a'.repeat(129 * 1024)), true, 'over 128 KB counts as long, as MailComposer has it');
});

test('compose: past 64 KB the parts decode to what MailComposer encodes, in lines of at most 76', async () => {
  const c = content(`<p>${'a=b&c=d ü '.repeat(20_000)}</p>`, null);
  const ours = (await compose(c, copy, 'http://svc.test')).raw;
  const [a, b] = await Promise.all([PostalMime.parse(ours), PostalMime.parse(await reference(c))]);
  assert.equal(a.text, b.text);
  assert.equal(a.html, b.html);
  assert.ok(
    ours
      .toString('latin1')
      .split(/\r?\n/)
      .every((l: string) => l.length <= 76),
  );
});

test('relayed content (raw): its text, HTML and attachments are read when composed, not before; the record keeps no body', async () => {
  const raw = [
    'To: jane@rcpt.test',
    'Subject: relayed',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: multipart/alternative; boundary="b2"',
    '',
    '--b2',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'plain words',
    '--b2',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<p>html words</p>',
    '--b2--',
    '--b1',
    'Content-Type: application/pdf; name="a.pdf"',
    'Content-Disposition: attachment; filename="a.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4 bytes').toString('base64'),
    '--b1--',
    '',
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
  await assert.rejects(
    compose(c, copy, 'http://svc.test'),
    (e: Error) => e.name === 'PoisonMessage' && /the relayed message could not be read/.test(e.message),
  );
});
