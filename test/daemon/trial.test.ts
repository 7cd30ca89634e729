// The trial's warnings (issue 30) through the real daemon on a moved clock: 14, 7 and 1 days
// before a trial workspace's deletion date its owner (not its member) are mailed a warning from
// the system sender, once each; nothing before its date, nothing twice, none for a workspace on a
// plan, and none (and nothing recorded) for a workspace without owners. With two daemons on one
// Postgres sweeping at once, each warning still goes once. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { trialDates } from '../../src/workspaces/trial.js';
import { sending, settled } from '../helpers/sending.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

/** The Subject header, unfolded (a long one is folded over lines). */
const subjectOf = (raw: Buffer) => (/^Subject: (.*(?:\r\n[ \t].*)*)\r$/m.exec(raw.toString())?.[1] ?? '').replace(/\r\n[ \t]+/g, ' ');

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: trial warnings: 14, 7 and 1 days before the deletion, to each owner once; none on a plan or without owners${backend === 'postgres' ? '; two daemons send each once' : ''}`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const clock = new ManualClock(new Date());
    const env = { SVC_SYSTEM_SENDER: 'hello@acme.test' };
    const s = await sending(t, { clock, env, ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    // A second daemon on the same Postgres, sweeping at the same moments.
    const other = pgUrl
      ? await startTestDaemon(t, { store: pgLocation(pgUrl), clock, env: { ...env, SVC_DNS_SERVERS: s.dns.server, SVC_DNS_TIMEOUT: '300', SVC_DIRECT_PORT: String(s.sink.port), SVC_SMTP_TIMEOUT: '2000' } })
      : null;
    const sweep = async () => (await Promise.all([service.trialSweep(), ...(other ? [other.daemon.service.trialSweep()] : [])])).reduce((n, r) => n + r.warned, 0);

    const trialco = await service.workspaces.create('trialco');
    await service.people.create(trialco, { email: 'ann@rcpt.test', role: 'owner' });
    await service.people.create(trialco, { email: 'mo@rcpt.test', role: 'member' });
    const quiet = await service.workspaces.create('quiet');
    const paid = await service.workspaces.create('paid');
    await service.people.create(paid, { email: 'pat@rcpt.test', role: 'owner' });
    await service.workspaces.setPlan('paid', 'starter');
    const invitations = 3;
    await s.sink.waitFor(invitations);
    // Every hand-off recorded before the clock moves (a lease taken on the old time would look lapsed).
    const handedOff = async () => {
      for (const m of (await s.get('/api/v2/messages?limit=100')).body.data) await settled(s, m.id);
    };
    await handedOff();
    const dates = trialDates(trialco)!;
    assert.equal((await service.workspaces.show('trialco')).delete_at, dates.delete_at);
    assert.equal((await service.workspaces.show('paid')).delete_at, null, 'a plan stops the countdown');

    const warningsTo = () => s.sink.received.filter((r) => /its data is deleted in/.test(subjectOf(r.raw))).map((r) => `${r.to.join(',')} ${subjectOf(r.raw).replace(/ \(.*\)$/, '')}`).sort();
    const at = (iso: string, ms = 0) => clock.set(new Date(Date.parse(iso) + ms));

    at(dates.warnings[0]!, -60_000);
    assert.equal(await sweep(), 0, 'not before its date');
    at(dates.warnings[0]!);
    assert.equal(await sweep(), 1);
    assert.equal(await sweep(), 0, 'once');
    await s.sink.waitFor(invitations + 1);
    assert.deepEqual(warningsTo(), ['ann@rcpt.test trialco: its data is deleted in 14 days']);
    const first = s.sink.received.find((r) => /in 14 days/.test(subjectOf(r.raw)))!.raw.toString();
    assert.match(first, /^From: svc <hello@acme\.test>\r$/m);
    assert.match(first, /This is warning 1 of 3\./);
    assert.match(first, /To keep it, choose a plan: /);

    await handedOff();
    at(dates.warnings[1]!);
    assert.equal(await sweep(), 1);
    await s.sink.waitFor(invitations + 2);
    await handedOff();
    at(dates.warnings[2]!);
    assert.equal(await sweep(), 1);
    await s.sink.waitFor(invitations + 3);
    await handedOff();
    at(dates.delete_at, 86_400_000);
    assert.equal(await sweep(), 0, 'three warnings in all');
    await s.sink.waitFor(invitations + 3);
    assert.equal(s.sink.received.length, invitations + 3, 'nothing else mailed: not the member, not the paid or ownerless workspaces');
    assert.deepEqual(warningsTo(), ['ann@rcpt.test trialco: its data is deleted in 1 day', 'ann@rcpt.test trialco: its data is deleted in 14 days', 'ann@rcpt.test trialco: its data is deleted in 7 days']);
    assert.deepEqual(await service.store.workspaces.trialWarnings(trialco.id), { sent: 3, last_at: new Date(Date.parse(dates.warnings[2]!)).toISOString() });
    assert.equal((await service.store.workspaces.trialWarnings(quiet.id)).sent, 0, 'no owner: nothing recorded');
    assert.ok(s.logs.some((l) => /trial: workspace quiet has no owner to warn/.test(l)), s.logs.join('\n'));
    // Not counted against the operator's plan.
    assert.equal((await service.workspaces.usage('acme')).quotas.find((q) => q.kind === 'api_sends' && q.window === 'day')!.used, 0);
  });
}
