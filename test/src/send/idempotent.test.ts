import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fingerprint, sameBody } from '../../../src/send/idempotent.js';

test('an Idempotency-Key fingerprint: the same JSON in any key order or spacing is the same; any other value, type or shape is not', () => {
  const body = {
    from: 'Acme <hello@acme.test>',
    to: ['jane@rcpt.test', 'bob@rcpt.test'],
    subject: 'Hi',
    body_html: '<p class="x">ünïcode 😀</p>',
    tags: { a: 1, b: [true, null] },
  };
  const reordered = JSON.parse(
    '{ "tags": {"b": [true, null], "a": 1.0}, "body_html": "<p class=\\"x\\">ünïcode 😀</p>", "subject": "Hi", "to": ["jane@rcpt.test", "bob@rcpt.test"], "from": "Acme <hello@acme.test>" }',
  );
  assert.equal(fingerprint(reordered), fingerprint(body));
  assert.match(fingerprint(body), /^2:[0-9a-f]{64}$/);
  const others: unknown[] = [
    { ...body, to: ['bob@rcpt.test', 'jane@rcpt.test'] },
    { ...body, subject: 'Hi ' },
    { ...body, tags: { a: '1', b: [true, null] } },
    { ...body, tags: { a: 1, b: [true, 'null'] } },
    { ...body, tags: { a: 1, b: [true] } },
    { ...body, tags: { a: 1, b: ['true', null] } },
    { ...body, tags: { a: 1 } },
    { ...body, to: ['jane@rcpt.testbob@rcpt.test'] },
    { ...body, to: 'jane@rcpt.test' },
  ];
  const seen = new Set([fingerprint(body), ...others.map(fingerprint)]);
  assert.equal(seen.size, others.length + 1);
  // Strings are length-prefixed: no two splits of the same characters agree.
  assert.notEqual(fingerprint(['ab', 'c']), fingerprint(['a', 'bc']));
  assert.notEqual(fingerprint({ ab: 'c' }), fingerprint({ a: 'bc' }));
  assert.notEqual(fingerprint([['a'], 'b']), fingerprint([['a', 'b']]));
});

test('a fingerprint kept before the current form (the hash of the canonical JSON) still names its body', () => {
  const body = { to: ['jane@rcpt.test'], from: 'hello@acme.test', subject: 'Hi' };
  const first = createHash('sha256')
    .update(JSON.stringify({ from: 'hello@acme.test', subject: 'Hi', to: ['jane@rcpt.test'] }))
    .digest('hex');
  assert.equal(sameBody(first, fingerprint(body), body), true);
  assert.equal(sameBody(first, fingerprint({ ...body, subject: 'Other' }), { ...body, subject: 'Other' }), false);
  assert.equal(sameBody(fingerprint(body), fingerprint(body), body), true);
  assert.equal(sameBody(fingerprint(body), fingerprint({ ...body, subject: 'Other' }), { ...body, subject: 'Other' }), false);
});
