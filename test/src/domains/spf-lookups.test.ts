// SPF look-ups counted as receivers count them (RFC 7208 §4.6.4): an include named twice costs
// twice (pyspf says permerror for the record below, so must we); a loop is past the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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

test('a redirect beside an all mechanism counts but is not followed (RFC 7208 §6.1)', async () => {
  const dns = zone({ 'r.test': 'v=spf1 a mx -all' });
  assert.equal(await countSpfLookups('v=spf1 redirect=r.test', dns), 3);
  assert.equal(await countSpfLookups('v=spf1 a -all redirect=r.test', dns), 2);
});

// pyspf (Debian's python3-spf) evaluates each record against a client no term matches, so it
// evaluates every term and its count is the worst case ours is: they must agree.
const PYSPF = `import spf, sys, json
zone = json.loads(sys.argv[1])
def lookup(name, qtype, strict=True, timeout=None):
    name = name.rstrip('.')
    if qtype == 'TXT' and name in zone: return [((name, 'TXT'), [zone[name].encode()])]
    if qtype == 'A': return [((name, 'A'), '192.0.2.50')]
    return []
spf.DNSLookup = lookup
q = spf.query(i='192.0.2.1', s='x@d.test', h='d.test')
print(q.check()[0], q.lookups)`;

test('look-ups counted as pyspf counts them', async (t) => {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import spf']);
  if (probe.error || probe.status !== 0) return t.skip('python3-spf is not installed (apt-get install python3-spf)');
  const zones: Array<Record<string, string>> = [
    { 'd.test': 'v=spf1 redirect=r.test', 'r.test': 'v=spf1 a mx -all' },
    { 'd.test': 'v=spf1 a -all redirect=r.test', 'r.test': 'v=spf1 a -all' },
    { 'd.test': 'v=spf1 -all redirect=r.test', 'r.test': 'v=spf1 a -all' },
    { 'd.test': 'v=spf1 a mx ptr exists:x.test ip4:192.0.2.9 -all' },
    {
      'd.test': 'v=spf1 include:i.test include:j.test ~all',
      'i.test': 'v=spf1 a mx -all',
      'j.test': 'v=spf1 include:k.test -all',
      'k.test': 'v=spf1 a:x.test -all',
    },
    {
      'd.test': `v=spf1 ${Array.from({ length: 10 }, (_, i) => `include:b${i}.test`).join(' ')} -all`,
      ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`b${i}.test`, 'v=spf1 ip4:192.0.2.9 -all'])),
    },
  ];
  for (const z of zones) {
    const r = spawnSync('/usr/bin/python3', ['-c', PYSPF, JSON.stringify(z)]);
    const theirs = Number(r.stdout.toString().trim().split(' ')[1]);
    assert.ok(Number.isInteger(theirs), r.stderr.toString());
    assert.equal(await countSpfLookups(z['d.test']!, zone(z)), theirs, z['d.test']);
  }
});
