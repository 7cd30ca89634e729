import { test } from 'node:test';
import assert from 'node:assert/strict';
import { txtStrings, zoneLines } from '../../../src/domains/zone.js';

test('zone lines: names fully qualified, MX with its priority, TXT cut into 255-byte quoted strings', () => {
  const key = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(392);
  const lines = zoneLines([
    { type: 'TXT', fqdn: '_svc.acme.test', value: 'svc-verify=abc' },
    { type: 'MX', fqdn: 'acme.test', value: '10 mx.svc.example' },
    { type: 'TXT', fqdn: 'svc1._domainkey.acme.test', value: key },
  ]);
  assert.equal(lines[0], '_svc.acme.test.\t3600\tIN\tTXT\t"svc-verify=abc"');
  assert.equal(lines[1], 'acme.test.\t3600\tIN\tMX\t10 mx.svc.example.');
  const strings = [...lines[2]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  assert.deepEqual(
    strings.map((x) => x.length),
    [255, 155],
  );
  assert.equal(strings.join(''), key, 'joined again, the value');
});

test('TXT strings: quotes and backslashes escaped; a UTF-8 character never cut in two; empty is one empty string', () => {
  assert.equal(txtStrings('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
  const s = 'é'.repeat(200);
  const parts = [...txtStrings(s).matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(parts.every((p) => Buffer.byteLength(p) <= 255));
  assert.equal(parts.join(''), s);
  assert.equal(txtStrings(''), '""');
});
