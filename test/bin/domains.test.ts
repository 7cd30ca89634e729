// `svc domains ...` and `svc addresses ...` as a CI script runs them: real DNS on loopback, --json,
// exit codes (0 verified, 3 not yet), --wait and --watch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { svc, json, SVC } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { publish } from '../helpers/domains.js';

async function setup(t: { after(fn: () => unknown): void }, plan = 'pro') {
  const dns = await fixtureDns(t);
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`, '--dns-server', dns.server, '--dns-timeout', '200'];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--plan', plan, '--json']));
  return { dns, base };
}

test('domains add/verify/show --json: the CONTRACT.md document and exit 0 only when DNS is right', async (t) => {
  const { dns, base } = await setup(t);
  const added = json(await svc([...base, 'domains', 'add', 'good.test', '--json']));
  assert.deepEqual(
    Object.keys(added)
      .filter((k) => ['id', 'domain', 'status', 'records'].includes(k))
      .sort(),
    ['domain', 'id', 'records', 'status'],
  );
  assert.equal(added.status, 'pending');
  assert.equal(added.records.length, 5);
  for (const r of added.records) assert.deepEqual(Object.keys(r).sort(), ['fqdn', 'name', 'note', 'purpose', 'status', 'type', 'value']);
  assert.deepEqual(
    added.records.map((r: any) => r.name),
    ['_svc', '@', '@', 'svc1._domainkey', '_dmarc'],
  );

  const before = await svc([...base, 'domains', 'verify', 'good.test', '--json']);
  assert.equal(before.code, 3);
  const doc = JSON.parse(before.stdout);
  // Only the DMARC record, which needs nothing from svc, is there before publishing.
  assert.deepEqual(
    doc.records.map((r: any) => r.status),
    ['Waiting', 'Waiting', 'Waiting', 'Waiting', 'Verified'],
  );
  assert.equal(doc.status, 'pending');

  publish(dns, 'good.test', added.records);
  const after = await svc([...base, 'domains', 'verify', 'good.test', '--json']);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(JSON.parse(after.stdout).status, 'verified');
  const shown = json(await svc([...base, 'domains', 'show', 'good.test', '--json']));
  assert.deepEqual(
    shown.records.map((r: any) => r.status),
    Array(5).fill('Verified'),
  );
  assert.equal(shown.history.length, 9);
  const list = json(await svc([...base, 'domains', 'list', '--json']));
  assert.deepEqual(
    list.map((d: any) => [d.domain, d.status]),
    [['good.test', 'verified']],
  );
  assert.ok(!JSON.stringify([added, shown, list]).includes('PRIVATE'));

  // DNS breaks later: verify exits 3 again; the domain stays verified; the change shows.
  dns.setVars('good.test', { token: 'gone' });
  const broken = await svc([...base, 'domains', 'verify', 'good.test']);
  assert.equal(broken.code, 3);
  assert.match(broken.stdout, /Problem\s+ownership/);
  const human = await svc([...base, 'domain', 'show', 'good.test']);
  assert.match(human.stdout, /ownership {2}Verified -> Problem/);
});

test('bad domain names and unknown domains: clear errors, nothing stored', async (t) => {
  const { base } = await setup(t);
  for (const bad of ['192.0.2.1', 'localhost', 'svc.localhost', 'bad_name.test']) {
    const r = await svc([...base, 'domains', 'add', bad]);
    assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
  const idn = json(await svc([...base, 'domains', 'add', 'bücher.test', '--json']));
  assert.equal(idn.domain, 'xn--bcher-kva.test');
  assert.equal((await svc([...base, 'domains', 'verify', 'other.test'])).code, 1);
  assert.deepEqual(
    json(await svc([...base, 'domains', 'list', '--json'])).map((d: any) => d.domain),
    ['xn--bcher-kva.test'],
  );
});

test('--wait polls until the records appear', async (t) => {
  const { dns, base } = await setup(t);
  const added = json(await svc([...base, 'domains', 'add', 'good.test', '--json']));
  // Published once the command says it is waiting.
  const child = spawn(process.execPath, [SVC, ...base, 'domains', 'verify', 'good.test', '--wait', '30', '--json'], {
    env: { ...process.env, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => {
    stderr += d;
    if (/waiting for/.test(stderr)) publish(dns, 'good.test', added.records);
  });
  const code = await new Promise((r) => child.on('exit', r));
  assert.equal(code, 0, stderr);
  assert.match(stderr, /waiting for ownership, mx, spf, dkim;/);
  assert.equal(JSON.parse(stdout).status, 'verified');
  // --wait that runs out: exit 3.
  json(await svc([...base, 'domains', 'add', 'missing.test', '--json']));
  assert.equal((await svc([...base, 'domains', 'verify', 'missing.test', '--wait', '1'])).code, 3);
  assert.equal((await svc([...base, 'domains', 'verify', 'missing.test', '--wait', 'soon'])).code, 2);
});

test('a DNS server that does not answer is exit 1 (could not check), not 3 (checked, not yet)', async (t) => {
  const { base } = await setup(t);
  json(await svc([...base, 'domains', 'add', 'good.test', '--json']));
  // Port 9 (discard) on loopback: nothing answers DNS there.
  const dead = base.map((a, i) => (base[i - 1] === '--dns-server' ? '127.0.0.1:9' : a));
  const r = await svc([...dead, 'domains', 'verify', 'good.test', '--dns-timeout', '300', '--json']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /good\.test: could not check ownership, mx, spf, dkim, dmarc: /);
  assert.equal(JSON.parse(r.stdout).status, 'pending', 'the document is printed all the same');
});

test('--watch re-runs the checks until all five pass', async (t) => {
  const { dns, base } = await setup(t);
  const added = json(await svc([...base, 'domains', 'add', 'good.test', '--json']));
  const child = spawn(process.execPath, [SVC, ...base, 'domains', 'verify', 'good.test', '--watch', '--interval', '0.2'], {
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const code = new Promise<number | null>((r) => child.on('exit', r));
  setTimeout(() => publish(dns, 'good.test', added.records), 500);
  assert.equal(await code, 0, out);
  assert.match(out, /good\.test verified/);
});

test('addresses add/list/disable/enable/remove and the plan limit with its body', async (t) => {
  const { base } = await setup(t, 'trial');
  json(await svc([...base, 'domains', 'add', 'good.test', '--json']));
  const a = json(await svc([...base, 'addresses', 'add', 'Hello@good.test', '--json']));
  assert.deepEqual([a.address, a.status], ['hello@good.test', 'active']);
  assert.deepEqual(Object.keys(a).sort(), ['address', 'id', 'status']);
  // A domain that is not the workspace's is a failure (exit 1), not wrong usage.
  const foreign = await svc([...base, 'addresses', 'add', 'x@elsewhere.test']);
  assert.equal(foreign.code, 1);
  assert.match(foreign.stderr, /elsewhere\.test is not a domain of workspace/);
  assert.equal((await svc([...base, 'addresses', 'add', 'hello@good.test'])).code, 1);
  assert.equal(json(await svc([...base, 'addresses', 'disable', 'hello@good.test', '--json'])).status, 'disabled');
  assert.equal(json(await svc([...base, 'address', 'enable', a.id, '--json'])).status, 'active');
  json(await svc([...base, 'addresses', 'add', 'b@good.test', '--json']));
  json(await svc([...base, 'addresses', 'add', 'c@good.test', '--json']));
  const over = await svc([...base, 'addresses', 'add', 'd@good.test', '--json']);
  assert.equal(over.code, 1);
  assert.match(over.stderr, /trial plan allows 3 addresses/);
  const body = JSON.parse(over.stdout);
  assert.deepEqual([body.code, body.kind, body.limit, body.used], ['quota_exceeded', 'addresses', 3, 3]);
  assert.ok(body.upgrade_url);
  const domainOver = await svc([...base, 'domains', 'add', 'split.test']);
  assert.equal(domainOver.code, 1);
  assert.match(domainOver.stderr, /trial plan allows 1 domain/);
  assert.deepEqual(
    json(await svc([...base, 'addresses', 'list', '--json'])).map((x: any) => x.address),
    ['hello@good.test', 'b@good.test', 'c@good.test'],
  );
  assert.equal(json(await svc([...base, 'addresses', 'remove', 'b@good.test', '--json'])).address, 'b@good.test');
  assert.equal((await svc([...base, 'domains', 'remove', 'good.test'])).code, 1);
  assert.equal(json(await svc([...base, 'domains', 'remove', 'good.test', '--force', '--json'])).addresses_removed, 2);
});

test('messages list/show and suppressions list/add/remove from the command line', async (t) => {
  const { base } = await setup(t);
  const empty = await svc([...base, 'messages', 'list', '--json']);
  assert.deepEqual(json(empty), []);
  assert.equal((await svc([...base, 'messages', 'list', '--status', 'lost'])).code, 2);
  assert.equal((await svc([...base, 'message', 'show', 'nope'])).code, 1);
  const added = json(await svc([...base, 'suppressions', 'add', 'Bounce@Example.org', '--json']));
  assert.deepEqual([added.address, added.reason], ['bounce@example.org', 'manual']);
  const list = json(await svc([...base, 'suppressions', 'list', '--json']));
  assert.deepEqual(
    list.map((x: any) => Object.keys(x).filter((k) => ['address', 'reason', 'created_at'].includes(k)).length),
    [3],
  );
  assert.equal(json(await svc([...base, 'suppression', 'remove', 'bounce@example.org', '--json'])).removed, true);
  assert.equal((await svc([...base, 'suppressions', 'remove', 'bounce@example.org'])).code, 1);
  assert.equal((await svc([...base, 'suppressions', 'add', 'not-an-address'])).code, 2);
});
