// Domain checks through the product's own resolver code against a real DNS server on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureDns } from '../../helpers/dns-server.js';
import { publish } from '../../helpers/domains.js';
import { testService } from '../../helpers/service.js';
import { isSvcError } from '../../../src/errors.js';
import { ManualClock } from '../../../src/clock.js';

async function setup(t: { after(fn: () => unknown): void }, plan = 'scale') {
  const dns = await fixtureDns(t);
  const clock = new ManualClock('2026-03-01T00:00:00Z');
  const { service, logs } = await testService(t, { clock, config: { dnsServers: [dns.server], dnsTimeoutMs: 200 } });
  const ws = await service.workspaces.create('acme', plan);
  return { dns, service, ws, clock, logs };
}

const statuses = (v: { records: Array<{ purpose: string; status: string | null }> }) =>
  Object.fromEntries(v.records.map((r) => [r.purpose, r.status]));

test('add: five records in the spec order, a fresh token and a 2048-bit key per domain', async (t) => {
  const { service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'good.test');
  assert.equal(v.status, 'pending');
  assert.deepEqual(
    v.records.map((r) => [r.purpose, r.type, r.name, r.fqdn]),
    [
      ['ownership', 'TXT', '_svc', '_svc.good.test'],
      ['mx', 'MX', '@', 'good.test'],
      ['spf', 'TXT', '@', 'good.test'],
      ['dkim', 'TXT', 'svc1._domainkey', 'svc1._domainkey.good.test'],
      ['dmarc', 'TXT', '_dmarc', '_dmarc.good.test'],
    ],
  );
  assert.match(v.records[0]!.value, /^svc-verify=[0-9a-f]{32}$/);
  assert.equal(v.records[1]!.value, '10 mx.svc.localhost');
  assert.equal(v.records[2]!.value, 'v=spf1 include:_spf.svc.localhost -all');
  assert.match(v.records[3]!.value, /^v=DKIM1; k=rsa; p=MIIBIjAN[A-Za-z0-9+/=]{384}$/);
  assert.equal(v.records[4]!.value, 'v=DMARC1; p=quarantine');
  assert.ok(v.records.every((r) => r.status === null && r.note === null));
  assert.ok(!JSON.stringify(v).includes('PRIVATE KEY'));
  const other = await service.domains.add(ws, 'split.test');
  assert.notEqual(other.records[0]!.value, v.records[0]!.value);
  assert.notEqual(other.records[3]!.value, v.records[3]!.value);
  await assert.rejects(service.domains.add(ws, 'GOOD.test.'), (e) => isSvcError(e) && e.kind === 'conflict');
});

test('all five good: verified, and it stays so', async (t) => {
  const { dns, service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'good.test');
  publish(dns, 'good.test', v.records);
  const r = await service.domains.verify(ws, 'good.test');
  assert.equal(r.passed, true);
  assert.equal(r.view.status, 'verified');
  assert.deepEqual(statuses(r.view), { ownership: 'Verified', mx: 'Verified', spf: 'Verified', dkim: 'Verified', dmarc: 'Verified' });
  assert.ok(r.view.verified_at && r.view.checked_at);
  assert.equal(r.view.dkim_verified, true);
});

test('nothing published: every record Waiting, domain pending', async (t) => {
  const { service, ws } = await setup(t);
  await service.domains.add(ws, 'missing.test');
  const r = await service.domains.verify(ws, 'missing.test');
  assert.equal(r.passed, false);
  assert.equal(r.view.status, 'pending');
  assert.deepEqual(statuses(r.view), { ownership: 'Waiting', mx: 'Waiting', spf: 'Waiting', dkim: 'Waiting', dmarc: 'Waiting' });
  // A domain that does not exist at all is the same: Waiting.
  await service.domains.add(ws, 'nowhere.test');
  assert.deepEqual(Object.values(statuses((await service.domains.verify(ws, 'nowhere.test')).view)), Array(5).fill('Waiting'));
});

test('each record wrong: Problem with a note saying what to publish', async (t) => {
  const { dns, service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'wrong.test');
  publish(dns, 'wrong.test', v.records);
  const r = await service.domains.verify(ws, 'wrong.test');
  assert.equal(r.passed, false);
  assert.deepEqual(statuses(r.view), { ownership: 'Problem', mx: 'Problem', spf: 'Problem', dkim: 'Problem', dmarc: 'Problem' });
  const note = (p: string) => r.view.records.find((x) => x.purpose === p)!.note!;
  assert.match(note('ownership'), /another token; add svc-verify=/);
  assert.match(note('mx'), /MX points elsewhere \(10 mx\.elsewhere\.example, 20 mx2\.elsewhere\.example\); add 10 mx\.svc\.localhost/);
  assert.match(note('spf'), /lacks include:_spf\.svc\.localhost/);
  assert.equal(r.view.records.find((x) => x.purpose === 'spf')!.value, 'v=spf1 include:_spf.google.com include:_spf.svc.localhost ~all');
  assert.match(note('dkim'), /not this domain's public key/);
  assert.match(note('dmarc'), /needs p=none, p=quarantine or p=reject/);
});

test('DKIM split into quoted pieces, SPF merged with a provider, DMARC p=none: verified with notes', async (t) => {
  const { dns, service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'split.test');
  publish(dns, 'split.test', v.records);
  const r = await service.domains.verify(ws, 'split.test');
  assert.deepEqual(statuses(r.view), { ownership: 'Verified', mx: 'Verified', spf: 'Recommended', dkim: 'Verified', dmarc: 'Recommended' });
  assert.equal(r.passed, true);
  assert.match(r.view.records.find((x) => x.purpose === 'dmarc')!.note!, /BIMI/);
});

test('two SPF records, MX at the wrong priority, two DMARC records', async (t) => {
  const { dns, service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'twospf.test');
  publish(dns, 'twospf.test', v.records);
  const r = await service.domains.verify(ws, 'twospf.test');
  const rec = (p: string) => r.view.records.find((x) => x.purpose === p)!;
  assert.deepEqual(
    [rec('spf').status, rec('mx').status, rec('dmarc').status, rec('dkim').status],
    ['Problem', 'Problem', 'Problem', 'Verified'],
  );
  assert.match(rec('spf').note!, /2 SPF records.*merge them into one/);
  assert.equal(rec('spf').value, 'v=spf1 include:_spf.google.com include:_spf.svc.localhost -all');
  assert.match(rec('mx').note!, /priority 20; use priority 10/);
});

test('SERVFAIL and a server that never answers: Waiting with a note, never a crash', async (t) => {
  const { dns, service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'broken.test');
  publish(dns, 'broken.test', v.records);
  const r = await service.domains.verify(ws, 'broken.test');
  const rec = (p: string) => r.view.records.find((x) => x.purpose === p)!;
  assert.deepEqual(
    [rec('ownership').status, rec('mx').status, rec('spf').status, rec('dkim').status, rec('dmarc').status],
    ['Verified', 'Waiting', 'Waiting', 'Waiting', 'Waiting'],
  );
  assert.match(rec('spf').note!, /SERVFAIL/);
  assert.match(rec('dkim').note!, /timed out/);
  assert.equal(r.passed, false);
});

test('a resolver that is not there at all: Waiting, not an exception', async (t) => {
  const { service } = await testService(t, { config: { dnsServers: ['127.0.0.1:1'], dnsTimeoutMs: 200 } });
  const ws = await service.workspaces.create('beta');
  await service.domains.add(ws, 'good.test');
  const r = await service.domains.verify(ws, 'good.test');
  assert.ok(
    r.view.records.every((x) => x.status === 'Waiting' && x.note),
    JSON.stringify(r.view.records),
  );
});

test('the token of another workspace: Problem; the first workspace whose token is in DNS wins', async (t) => {
  const { dns, service, ws } = await setup(t);
  const other = await service.workspaces.create('beta', 'scale');
  const mine = await service.domains.add(ws, 'good.test');
  const theirs = await service.domains.add(other, 'good.test');
  // DNS carries the other workspace's token.
  publish(
    dns,
    'good.test',
    theirs.records.map((r) => (r.purpose === 'dkim' ? mine.records[3]! : r)),
  );
  const r = await service.domains.verify(ws, 'good.test');
  assert.equal(r.view.records[0]!.status, 'Problem');
  assert.match(r.view.records[0]!.note!, /another token/);
  assert.equal(r.passed, false);
  // Now with both tokens... the workspace that verifies first keeps it.
  publish(dns, 'good.test', mine.records);
  assert.equal((await service.domains.verify(ws, 'good.test')).passed, true);
  publish(dns, 'good.test', theirs.records);
  const late = await service.domains.verify(other, 'good.test');
  assert.equal(late.passed, false);
  assert.equal(late.view.status, 'pending');
  assert.match(late.view.records[0]!.note!, /already verified by another workspace/);
});

test('legacy domains: verified from the start, signed with their own key once DKIM checks out', async (t) => {
  const { dns, service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'legacy.test', { legacyVerified: true });
  assert.deepEqual([v.status, v.legacy, v.dkim_verified], ['verified', true, false]);
  publish(dns, 'legacy.test', v.records);
  const r = await service.domains.verify(ws, 'legacy.test');
  assert.equal(r.view.status, 'verified');
  assert.equal(r.view.dkim_verified, true);
  assert.equal(r.passed, false, 'the other four records are not there');
});

test('a record that disappears later: the domain stays verified and the change is in its history', async (t) => {
  const { dns, service, ws, clock } = await setup(t);
  const v = await service.domains.add(ws, 'good.test');
  publish(dns, 'good.test', v.records);
  await service.domains.verify(ws, 'good.test');
  clock.advance(3600_000);
  dns.setVars('good.test', { dkim: 'v=DKIM1; k=rsa; p=' });
  const sweep = await service.domains.recheckAll();
  // Its mail goes unsigned from now on, and the sweep names it (the daemon's `dkim` fault).
  assert.deepEqual(sweep, { checked: 1, passed: 0, failed: 0, unsigned: ['good.test'], damaged: [] });
  const after = await service.domains.show(ws, 'good.test');
  assert.equal(after.status, 'verified');
  assert.equal(after.dkim_verified, false);
  assert.equal(after.records[3]!.status, 'Problem');
  const last = after.history.at(-1)!;
  assert.deepEqual([last.purpose, last.from, last.to, last.at], ['dkim', 'Verified', 'Problem', '2026-03-01T01:00:00.000Z']);
  // Fixed again: signed again.
  publish(dns, 'good.test', v.records);
  assert.deepEqual((await service.domains.recheckAll()).unsigned, []);
  assert.equal((await service.domains.show(ws, 'good.test')).dkim_verified, true);
});

test('a DNS outage during a re-check says nothing about the DKIM record: the domain keeps signing', async (t) => {
  const { dns, service, ws } = await setup(t);
  const v = await service.domains.add(ws, 'good.test');
  publish(dns, 'good.test', v.records);
  await service.domains.verify(ws, 'good.test');
  await dns.stop();
  const sweep = await service.domains.recheckAll();
  assert.deepEqual(sweep.unsigned, []);
  const after = await service.domains.show(ws, 'good.test');
  assert.equal(after.records[3]!.status, 'Waiting');
  assert.equal(after.dkim_verified, true);
});

test('plan count limits refuse the add with the quota body', async (t) => {
  const { service, ws } = await setup(t, 'trial');
  await service.domains.add(ws, 'good.test');
  await assert.rejects(service.domains.add(ws, 'split.test'), (e) => {
    assert.ok(isSvcError(e));
    assert.equal(e.kind, 'plan_limit');
    assert.match(e.message, /trial plan allows 1 domain \(1 in use\)/);
    assert.deepEqual({ ...e.details, upgrade_url: 'x' }, { code: 'quota_exceeded', kind: 'domains', limit: 1, used: 1, upgrade_url: 'x' });
    return true;
  });
  for (const a of ['a@good.test', 'b@good.test', 'c@good.test']) await service.addresses.add(ws, a);
  await assert.rejects(
    service.addresses.add(ws, 'd@good.test'),
    (e) => isSvcError(e) && e.kind === 'plan_limit' && /3 addresses/.test(e.message),
  );
});

test('addresses: exact mailboxes on a domain of the workspace', async (t) => {
  const { service, ws } = await setup(t);
  await service.domains.add(ws, 'good.test');
  const a = await service.addresses.add(ws, 'Hello@GOOD.test');
  assert.deepEqual([a.address, a.status, a.domain], ['hello@good.test', 'active', 'good.test']);
  for (const bad of ['not-an-address', 'Name <x@good.test>']) {
    await assert.rejects(service.addresses.add(ws, bad), (e) => isSvcError(e) && e.kind === 'invalid_argument', bad);
  }
  // A domain that is not the workspace's: not found (a failure, exit 1), not wrong usage.
  for (const foreign of ['hello@other.test', 'hello@sub.good.test']) {
    await assert.rejects(service.addresses.add(ws, foreign), (e) => isSvcError(e) && e.kind === 'not_found', foreign);
  }
  await assert.rejects(service.addresses.add(ws, 'hello@good.test'), (e) => isSvcError(e) && e.kind === 'conflict');
  assert.equal((await service.addresses.setStatus(ws, 'hello@good.test', 'disabled')).status, 'disabled');
  await assert.rejects(service.domains.remove(ws, 'good.test'), /has 1 address/);
  const { id } = await service.domains.show(ws, 'good.test');
  assert.deepEqual(await service.domains.remove(ws, 'good.test', { force: true }), { id, domain: 'good.test', addresses_removed: 1 });
  assert.deepEqual(await service.addresses.list(ws), []);
});

test('verdicts that match receivers: SPF look-ups counted, organizational DMARC, the most preferred MX, trailing dots', async (t) => {
  const { dns, service, ws } = await setup(t);
  const rec = (v: { records: Array<{ purpose: string; status: string | null; note: string | null; value: string }> }, p: string) =>
    v.records.find((x) => x.purpose === p)!;

  // 16 look-ups: a Problem with the count, though the record itself is well formed.
  publish(dns, 'lookups.test', (await service.domains.add(ws, 'lookups.test')).records);
  const many = await service.domains.verify(ws, 'lookups.test');
  assert.equal(rec(many.view, 'spf').status, 'Problem');
  assert.match(rec(many.view, 'spf').note!, /needs (1[1-9]|\d{3,}) DNS look-ups; receivers stop at 10/);
  assert.equal(many.passed, false);

  // DMARC at the organizational domain only, trailing dots on MX and in the SPF include: verified.
  publish(dns, 'news.orgdmarc.test', (await service.domains.add(ws, 'news.orgdmarc.test')).records);
  const sub = await service.domains.verify(ws, 'news.orgdmarc.test');
  assert.deepEqual(statuses(sub.view), { ownership: 'Verified', mx: 'Verified', spf: 'Verified', dkim: 'Verified', dmarc: 'Verified' });
  assert.match(rec(sub.view, 'dmarc').note!, /applied from the organizational domain orgdmarc\.test/);

  // Google's MX at 1 beside ours at 10: a Problem; the suggested SPF keeps Google's include.
  publish(dns, 'googlemx.test', (await service.domains.add(ws, 'googlemx.test')).records);
  const g = await service.domains.verify(ws, 'googlemx.test');
  assert.equal(rec(g.view, 'mx').status, 'Problem');
  assert.match(rec(g.view, 'mx').note!, /1 aspmx\.l\.google\.com is preferred to .* replies go there/);
  assert.equal(rec(g.view, 'spf').status, 'Problem');
  assert.equal(rec(g.view, 'spf').value, 'v=spf1 include:_spf.google.com include:_spf.svc.localhost ~all');
  // A DKIM record behind a CNAME is followed, as receivers do.
  publish(dns, 'cnamedkim.test', (await service.domains.add(ws, 'cnamedkim.test')).records);
  const c = await service.domains.verify(ws, 'cnamedkim.test');
  assert.equal(rec(c.view, 'dkim').status, 'Verified', rec(c.view, 'dkim').note ?? '');
});
