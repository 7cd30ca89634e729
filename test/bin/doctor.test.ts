// svc doctor against fixture DNS: each check with its status, detail and fix; exit 0
// when everything passes, 3 when something needs attention, 1 when it could not check; the port
// 25 probe only when asked, against a local sink; nothing stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { publish } from '../helpers/domains.js';
import { sink } from '../helpers/sink.js';

type Check = { name: string; status: string; detail: string; fix: string | null };
const ZONE = `
$ORIGIN mail.test
_spf              TXT   "v=spf1 ip4:127.0.0.1 -all"
mx                A     127.0.0.1
$ORIGIN 0.0.127.in-addr.arpa
1                 PTR   mx.mail.test.
`;

test('svc doctor: every check passes on a sound set-up (exit 0 unless the clock is unsynchronised); each problem has a fix (exit 3)', async (t) => {
  const dns = await fixtureDns(t);
  dns.zone(ZONE);
  const dir = await tmpDir(t);
  const config = join(dir, 'svc.toml');
  await writeFile(
    config,
    `store = "file:${join(dir, 'data')}"\nservice-domain = "mail.test"\nbase-url = "https://mail.test"\ndns-server = "${dns.server}"\n`,
  );
  const base = ['--config', config];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const added = json(await svc([...base, 'domains', 'add', 'acme.test', '--json']));
  publish(dns, 'acme.test', added.records, { mx_host: 'mx.mail.test', service_domain: 'mail.test' });

  const r = await svc([...base, 'doctor', '--json']);
  const { checks } = JSON.parse(r.stdout) as { checks: Check[] };
  const by = (name: string) => checks.find((c) => c.name === name)!;
  for (const c of checks) assert.deepEqual(Object.keys(c), ['name', 'status', 'detail', 'fix']);
  for (const name of ['store', 'base_url', 'service_domain', 'spf_include', 'mx_host', 'helo_name', 'domain acme.test'])
    assert.equal(by(name).status, 'pass', `${name}: ${by(name).detail}`);
  assert.match(by('helo_name').detail, /mx\.mail\.test → 127\.0\.0\.1 → mx\.mail\.test/);
  assert.equal(by('tls_certificate').status, 'skip', 'no certificate before the first svc serve');
  assert.equal(by('outbound').status, 'skip', 'port 25 is never probed unless asked');
  assert.ok(['pass', 'warn', 'skip'].includes(by('clock').status));
  const attention = checks.some((c) => c.status === 'warn' || c.status === 'fail');
  assert.equal(r.code, attention ? 3 : 0, r.stdout);
  // Nothing stored: the domain was checked, not verified.
  assert.equal(json(await svc([...base, 'domains', 'show', 'acme.test', '--json'])).status, 'pending');

  // Problems, each with its fix: no SPF include published, a loopback base URL, a domain's record gone.
  dns.zone('$ORIGIN mail.test\nmx A 127.0.0.1\n');
  dns.setVars('acme.test', { dkim: '' });
  const bad = await svc([...base, 'doctor', '--json'], { env: { SVC_BASE_URL: 'http://127.0.0.1:8080' } });
  assert.equal(bad.code, 3);
  const found = (JSON.parse(bad.stdout) as { checks: Check[] }).checks;
  const get = (name: string) => found.find((c) => c.name === name)!;
  assert.equal(get('spf_include').status, 'fail');
  assert.match(get('spf_include').fix!, /publish _spf\.mail\.test TXT "v=spf1/);
  assert.equal(get('base_url').status, 'warn');
  assert.match(get('base_url').fix!, /base-url/);
  assert.equal(get('domain acme.test').status, 'warn');
  assert.match(get('domain acme.test').detail, /dkim/);
  assert.match(get('domain acme.test').fix!, /svc domains records acme\.test/);
  const human = await svc([...base, 'doctor']);
  assert.equal(human.code, 3);
  assert.match(human.stdout, /^FAIL spf_include: /m);
  assert.match(human.stdout, /^ {5}fix: publish _spf\.mail\.test/m);
});

test('svc doctor --probe-domain connects to an MX on the delivery port; a store it cannot open is exit 1', async (t) => {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  const dir = await tmpDir(t);
  const store = ['--store', `file:${join(dir, 'data')}`, '--dns-server', dns.server];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  const probe = async (port: number) =>
    JSON.parse(
      (await svc([...store, 'doctor', '--json', '--probe-domain', 'rcpt.test'], { env: { SVC_DIRECT_PORT: String(port) } })).stdout,
    ).checks.find((c: Check) => c.name === 'outbound') as Check;
  const open = await probe(s.port);
  assert.equal(open.status, 'pass', open.detail);
  assert.match(open.detail, /mx\.rcpt\.test:\d+ \(MX of rcpt\.test\) greets: 220 /);
  // A port that answers and hangs up without a greeting (a stopped sink's port could be taken by
  // another test's server before the probe gets there): a failure at once, not after the timeout.
  const mute = createServer((c) => c.end());
  await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
  t.after(() => mute.close());
  const closed = await probe((mute.address() as AddressInfo).port);
  assert.equal(closed.status, 'fail');
  assert.match(closed.detail, /hung up without a greeting/);
  assert.match(closed.fix!, /smarthost/);
  const none = await svc(['--store', `file:${join(dir, 'nowhere')}`, 'doctor']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no svc store at/);
});
