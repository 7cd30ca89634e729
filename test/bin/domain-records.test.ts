// svc domains records (CONTRACT.md): the five records as a table, as JSON, and as BIND zone lines
// whose TXT strings join back to the values; a bad --format is exit 2.
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

test('svc domains records: table, json and zone formats', async (t) => {
  const base = ['--store', `file:${await tmpDir(t)}`, '--service-domain', 'mail.example.com'];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...base, 'domains', 'add', 'acme.test', '--json']));
  const doc = json(await svc([...base, 'domains', 'records', 'acme.test', '--format', 'json']));
  assert.equal(doc.domain, 'acme.test');
  assert.deepEqual(
    doc.records.map((r: { purpose: string }) => r.purpose),
    ['ownership', 'mx', 'spf', 'dkim', 'dmarc'],
  );
  assert.deepEqual(json(await svc([...base, 'domains', 'records', 'acme.test', '--json'])), doc);
  const zone = await svc([...base, 'domains', 'records', 'acme.test', '--format', 'zone']);
  assert.equal(zone.code, 0, zone.stderr);
  const lines = zone.stdout.trim().split('\n');
  assert.match(lines[0]!, /^; acme\.test/);
  assert.equal(lines.length, 6);
  assert.equal(lines[2], 'acme.test.\t3600\tIN\tMX\t10 mx.mail.example.com.');
  assert.equal(lines[3], 'acme.test.\t3600\tIN\tTXT\t"v=spf1 include:_spf.mail.example.com -all"');
  const dkim = lines.find((l) => l.startsWith('svc1._domainkey.acme.test.'))!;
  const strings = [...dkim.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(strings.length >= 2 && strings.every((x) => x.length <= 255), dkim);
  assert.equal(strings.join(''), doc.records.find((r: { purpose: string }) => r.purpose === 'dkim').value);
  const table = await svc([...base, 'domains', 'records', 'acme.test']);
  assert.match(table.stdout, /^PURPOSE\s+TYPE\s+FQDN\s+VALUE/m);
  // The DKIM value for people, too, is cut into quoted strings of at most 255 bytes, ready to paste.
  const row = table.stdout.split('\n').find((l) => l.startsWith('dkim'))!;
  const pieces = [...row.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  assert.ok(pieces.length >= 2 && pieces.every((x) => x.length <= 255), row);
  assert.equal(pieces.join(''), doc.records.find((r: { purpose: string }) => r.purpose === 'dkim').value);
  assert.match(row, /"v=DKIM1; k=rsa; p=/);
  assert.match(table.stdout, /^dmarc\s+TXT\s+_dmarc\.acme\.test\s+v=DMARC1; p=quarantine/m);
  const bad = await svc([...base, 'domains', 'records', 'acme.test', '--format', 'yaml']);
  assert.deepEqual([bad.code, bad.stderr.trim()], [2, "svc: invalid --format 'yaml': use table, zone, json"]);
});

const checkzone = spawnSync('named-checkzone', ['-v']).status === 0;

test(
  'the zone output loads in BIND: named-checkzone takes it, and the DKIM strings join to the key',
  { skip: !checkzone && 'named-checkzone is not installed (bind9-utils)' },
  async (t) => {
    const dir = await tmpDir(t);
    const base = ['--store', `file:${dir}`, '--service-domain', 'mail.example.com'];
    json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
    json(await svc([...base, 'domains', 'add', 'acme.test', '--json']));
    const doc = json(await svc([...base, 'domains', 'records', 'acme.test', '--json']));
    const zone = await svc([...base, 'domains', 'records', 'acme.test', '--format', 'zone']);
    // The records of a zone file need the zone's own SOA and NS around them, as an operator's zone has.
    const file = join(dir, 'acme.test.zone');
    await writeFile(
      file,
      [
        '$TTL 3600',
        '@ IN SOA ns1.acme.test. hostmaster.acme.test. 1 3600 600 86400 3600',
        '@ IN NS ns1.acme.test.',
        'ns1 IN A 192.0.2.1',
        zone.stdout,
      ].join('\n'),
    );
    const checked = spawnSync('named-checkzone', ['acme.test', file], { encoding: 'utf8' });
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
    assert.match(checked.stdout, /OK/);
    // BIND's own reading of the DKIM record, strings joined, is the key svc checks for.
    const dumped = spawnSync('named-compilezone', ['-q', '-o', '-', 'acme.test', file], { encoding: 'utf8' });
    const line = dumped.stdout.split('\n').find((l) => l.startsWith('svc1._domainkey.acme.test.'))!;
    const joined = [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!).join('');
    assert.equal(joined, doc.records.find((r: { purpose: string }) => r.purpose === 'dkim').value);
  },
);
