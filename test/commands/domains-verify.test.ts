// `svc domains verify` with a DNS server (or service domain) given for this run only, against the
// instance's own in its config file, is a probe: it shows what it found and stores nothing; with
// the instance's own settings it stores the statuses and verifies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../helpers/run.js';
import { json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { publish } from '../helpers/domains.js';

test('domains verify: a one-off --dns-server or --service-domain shows its verdicts and stores none', async (t) => {
  const instance = await fixtureDns(t);
  const other = await fixtureDns(t);
  const cwd = await tmpDir(t);
  writeFileSync(join(cwd, 'svc.toml'), `store = "file:${join(cwd, 'data')}"\ndns-server = "${instance.server}"\ndns-timeout = 300\n`);
  const svc = (...args: string[]) => run(args, { cwd });
  assert.equal((await svc('workspaces', 'create', 'acme', '--plan', 'pro')).code, 0);
  const added = json(await svc('domains', 'add', 'good.test', '--json'));
  // Only the other server has the records: a probe against it passes, and changes nothing.
  publish(other, 'good.test', added.records);
  const probe = await svc('domains', 'verify', 'good.test', '--dns-server', other.server, '--json');
  assert.equal(probe.code, 0, probe.stderr);
  assert.equal(json(probe).status, 'verified', 'what it found');
  assert.match(
    probe.stderr,
    /checked with --dns-server given for this run \(the instance has another\): the results are shown, not stored/,
  );
  const shown = json(await svc('domains', 'show', 'good.test', '--json'));
  assert.deepEqual(
    [shown.status, shown.checked_at, shown.records.map((r: { status: null }) => r.status)],
    ['pending', null, Array(5).fill(null)],
  );
  const probe2 = await svc('domains', 'verify', 'good.test', '--service-domain', 'other.example', '--json');
  assert.match(probe2.stderr, /--service-domain given for this run/);
  assert.equal(json(await svc('domains', 'show', 'good.test', '--json')).checked_at, null);
  // The instance's own server: stored, and verified once its records are there.
  assert.equal(
    (await svc('domains', 'verify', 'good.test', '--dns-server', instance.server)).code,
    3,
    'the same server as the file: stored',
  );
  assert.notEqual(json(await svc('domains', 'show', 'good.test', '--json')).checked_at, null);
  publish(instance, 'good.test', added.records);
  assert.equal((await svc('domains', 'verify', 'good.test')).code, 0);
  assert.equal(json(await svc('domains', 'show', 'good.test', '--json')).status, 'verified');
});
