// The MX's scan before any full parse (src/inbox/parse.ts) must see the parts postal-mime will see:
// a Content-Type with a comment (`(x) multipart/mixed`), folded over lines, or given twice (postal-
// mime takes one of them) is multipart to both. Checked against postal-mime itself, so a change in
// how it reads the field fails here; and a message built past MAX_PARTS that way is kept unparsed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { MAX_PARTS, READ_LINES_MAX, READ_PARSE_MAX, declaresParts, readHead, readablePart } from '../../../src/inbox/parse.js';
import { withoutComments } from '../../../src/mail/header-block.js';

const multipart = (contentType: string, parts: number) =>
  Buffer.from(
    `From: a@elsewhere.test\r\nTo: hello@acme.test\r\nSubject: parts\r\n${contentType}\r\n\r\n` +
      Array.from(
        { length: parts },
        (_, i) => `--b\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename="p${i}.txt"\r\n\r\npart ${i}\r\n`,
      ).join('') +
      '--b--\r\n',
  );

const HEADERS = [
  'Content-Type: multipart/mixed; boundary=b',
  'Content-Type: (x) multipart/mixed; boundary=b',
  'Content-Type: (nested (comment) \\) here) Multipart/Mixed; boundary="b"',
  'Content-Type:\r\n (x)\r\n multipart/mixed;\r\n boundary=b',
  'Content-Type: multipart/mixed; boundary=b\r\nContent-Type: text/plain',
];

for (const h of HEADERS) {
  test(`postal-mime and the scan agree that it has parts: ${JSON.stringify(h)}`, async () => {
    const raw = multipart(h, 3);
    const email = await PostalMime.parse(raw);
    assert.equal(email.attachments.length, 3, 'postal-mime reads it as multipart');
    assert.equal(declaresParts(readHead(raw).fields), true, 'so does the scan');
    // Past the limit, the same header makes it a message that is never parsed.
    assert.match(readHead(multipart(h, MAX_PARTS + 1)).problem ?? '', /more than 500 MIME parts; kept as received, not parsed/);
  });
}

test('of two Content-Type fields, either one declaring parts counts (parsers differ on which they take)', () => {
  const raw = multipart('Content-Type: text/plain\r\nContent-Type: multipart/mixed; boundary=b', MAX_PARTS + 1);
  assert.match(readHead(raw).problem ?? '', /more than 500 MIME parts/);
});

test('a single part stays a single part to both: text/plain, a comment after the type, a type in quotes', async () => {
  for (const h of ['Content-Type: text/plain (multipart/mixed)', 'Content-Type: text/plain; x="(multipart/mixed)"']) {
    const raw = Buffer.from(`From: a@elsewhere.test\r\n${h}\r\n\r\n--b\r\nx\r\n`);
    assert.equal(declaresParts(readHead(raw).fields), false, h);
    assert.equal((await PostalMime.parse(raw)).attachments.length, 0, h);
  }
});

test('comments: nested, escaped, inside quotes kept, unbalanced to the end', () => {
  assert.equal(withoutComments('(a (b) \\) c) multipart/mixed').trim(), 'multipart/mixed');
  assert.equal(withoutComments('text/plain; name="a (b) c"'), 'text/plain; name="a (b) c"');
  assert.equal(withoutComments('multipart/mixed (open').trim(), 'multipart/mixed');
});

test('what is parsed to read a message: all of a small one, the first 100,000 lines or 2 MB of a long one', () => {
  const small = Buffer.from('Subject: x\r\n\r\nhello\r\n');
  assert.deepEqual(readablePart(small), { part: small, whole: true });
  const lines = Buffer.from('a\r\n'.repeat(READ_LINES_MAX + 10));
  const cutLines = readablePart(lines);
  assert.equal(cutLines.whole, false);
  assert.equal(cutLines.part.toString().split('\n').length - 1, READ_LINES_MAX, 'whole lines, as many as allowed');
  const long = Buffer.from(`${'x'.repeat(998)}\r\n`.repeat(3000));
  const cutBytes = readablePart(long);
  assert.deepEqual([cutBytes.whole, cutBytes.part.length], [false, READ_PARSE_MAX]);
});
