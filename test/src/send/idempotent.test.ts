import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fingerprint } from '../../../src/send/idempotent.js';

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
  assert.match(fingerprint(body), /^[0-9a-f]{64}$/);
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
