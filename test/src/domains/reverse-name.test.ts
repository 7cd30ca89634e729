import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reverseName } from '../../../src/domains/dns.js';

test('reverse names of addresses (PTR look-ups of svc doctor)', () => {
  assert.equal(reverseName('192.0.2.10'), '10.2.0.192.in-addr.arpa');
  assert.equal(reverseName('2001:db8::1'), '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
  assert.equal(reverseName('::1'), `1.${'0.'.repeat(31)}ip6.arpa`);
});
