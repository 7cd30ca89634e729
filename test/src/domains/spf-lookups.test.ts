// SPF look-ups counted as receivers count them (RFC 7208 §4.6.4): an include named twice costs
// twice (pyspf says permerror for the record below, so must we); a loop is past the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countSpfLookups, SPF_LOOKUP_LIMIT } from '../../../src/domains/spf-lookups.js';
import type { DnsClient } from '../../../src/domains/dns.js';

const zone = (records: Record<string, string>): DnsClient & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    txt: async (name) => {
      asked.push(name);
      return { ok: true, records: records[name] ? [records[name]!] : [] };
    },
    mx: async () => ({ ok: true, records: [] }),
    addresses: async () => ({ ok: true, records: [] }),
  };
};

test('an include named twice is counted twice; its record is asked once', async () => {
  // Each evaluation of five.test costs 5 (a, mx and three more includes that cost nothing further).
  const dns = zone({ 'five.test': 'v=spf1 a mx include:x.test include:y.test include:z.test ~all' });
  assert.equal(await countSpfLookups('v=spf1 include:five.test ~all', dns), 6);
  assert.equal(await countSpfLookups('v=spf1 include:five.test include:five.test -all', dns), 12);
  assert.ok((await countSpfLookups('v=spf1 include:five.test include:five.test -all', dns)) > SPF_LOOKUP_LIMIT);
  assert.equal(dns.asked.filter((n) => n === 'five.test').length, 3, 'once per evaluation');
});

test('a record that includes itself, directly or further down, is past the limit', async () => {
  const dns = zone({ 'a.test': 'v=spf1 include:b.test -all', 'b.test': 'v=spf1 include:a.test -all' });
  assert.ok((await countSpfLookups('v=spf1 include:a.test -all', dns)) > SPF_LOOKUP_LIMIT);
  assert.equal(await countSpfLookups('v=spf1 include:b.test -all', zone({ 'b.test': 'v=spf1 ip4:192.0.2.1 -all' })), 1);
});
