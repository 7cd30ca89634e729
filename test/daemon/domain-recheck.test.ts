// The daemon's periodic re-check worker records what DNS says over time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureDns } from '../helpers/dns-server.js';
import { publish } from '../helpers/domains.js';
import { startTestDaemon } from '../helpers/daemon.js';

test('the re-check worker checks every domain of every workspace and keeps the changes', async (t) => {
  const dns = await fixtureDns(t);
  const d = await startTestDaemon(t, { env: { SVC_DNS_SERVERS: dns.server, SVC_DNS_TIMEOUT: '200', SVC_DOMAIN_RECHECK: '3600' } });
  const { service } = d.daemon;
  const a = await service.workspaces.create('acme', 'pro');
  const b = await service.workspaces.create('beta', 'pro');
  const good = await service.domains.add(a, 'good.test');
  await service.domains.add(b, 'missing.test');
  publish(dns, 'good.test', good.records);
  const worker = d.daemon.workers.find((w) => w.name === 'domain-recheck')!;
  await worker.runOnce();
  assert.equal((await service.domains.show(a, 'good.test')).status, 'verified');
  assert.equal((await service.domains.show(b, 'missing.test')).records[0]!.status, 'Waiting');
  assert.ok(d.logs.some((l) => /domain re-check: 2 checked, 1 passing/.test(l)));
  dns.setVars('good.test', { dkim: 'v=DKIM1; p=' });
  await worker.runOnce();
  const after = await service.domains.show(a, 'good.test');
  assert.equal(after.records[3]!.status, 'Problem');
  assert.deepEqual(after.history.at(-1)!.purpose, 'dkim');
  // Loud: the daemon says which domain and why, and `domains show` has the reason.
  assert.ok(
    d.logs.some((l) =>
      /error: domain good\.test: its DKIM record svc1\._domainkey no longer checks out \(Problem: the record has an empty p=/.test(l),
    ),
    d.logs.join(''),
  );
  assert.match(after.records[3]!.note!, /empty p=/);
});
