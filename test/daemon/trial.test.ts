// The trial's end through the real daemon on a moved clock: 14, 7 and 1 days before a
// trial workspace's deletion date its owner (not its member) are mailed a warning from the system
// sender, once each; nothing before its date, nothing twice, none for a workspace on a plan, and
// none (and nothing recorded) for a workspace without owners. On its date, after the three
// warnings, the workspace is deleted: its key stops working at once and its data goes, logged
// once; the workspace without warnings is kept. With two daemons on one Postgres sweeping at once,
// each warning goes once and the deletion is done and logged once. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { trialDates } from '../../src/workspaces/trial.js';
import { MANUAL_CLOCK_DEADLINES, sending, settled } from '../helpers/sending.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { hashKey } from '../../src/auth/keys.js';
import { until } from '../helpers/until.js';

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
      ? await startTestDaemon(t, {
          store: pgLocation(pgUrl),
          clock,
          env: {
            ...env,
            ...MANUAL_CLOCK_DEADLINES,
            SVC_DNS_SERVERS: s.dns.server,
            SVC_DIRECT_PORT: String(s.sink.port),
          },
        })
      : null;
    const sweeps = () => Promise.all([service.trialSweep(), ...(other ? [other.daemon.service.trialSweep()] : [])]);
    const sweep = async () => (await sweeps()).reduce((n, r) => n + r.warned, 0);

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
      for (const m of (await s.get('/api/v2/messages?limit=100')).body.data) await settled(s, m.id, 60_000);
    };
    await handedOff();
    const dates = trialDates(trialco)!;
    assert.equal((await service.workspaces.show('trialco')).delete_at, dates.delete_at);
    assert.equal((await service.workspaces.show('paid')).delete_at, null, 'a plan stops the countdown');

    const warningsTo = () =>
      s.sink.received
        .filter((r) => /its data is deleted in/.test(subjectOf(r.raw)))
        .map((r) => `${r.to.join(',')} ${subjectOf(r.raw).replace(/ \(.*\)$/, '')}`)
        .sort();
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
    // Its data: a key, a send (to the sink), an address of its own.
    const key = await service.keys.create(trialco, { scopes: ['send', 'read'] });
    at(dates.delete_at, -60_000);
    assert.equal(await sweep(), 0, 'three warnings in all');
    assert.ok(await service.workspaces.byName('trialco'), 'kept until its date');
    assert.deepEqual(await service.store.workspaces.trialWarnings(trialco.id), {
      sent: 3,
      last_at: new Date(Date.parse(dates.warnings[2]!)).toISOString(),
    });
    at(dates.delete_at);
    await sweeps();
    const deletedLogs = () => [...s.logs, ...(other?.logs ?? [])].filter((l) => /workspace trialco: its data is deleted/.test(l));
    await until(
      'the deletion finished',
      async () => deletedLogs().length,
      (n) => n > 0,
      undefined,
      50,
    );
    await sweeps();
    assert.equal(deletedLogs().length, 1, 'logged once');
    assert.equal([...s.logs, ...(other?.logs ?? [])].filter((l) => /workspace trialco deleted \(trial\)/.test(l)).length, 1);
    assert.equal(await service.store.workspaces.getByName('trialco'), null);
    assert.deepEqual(await service.store.workspaces.deletions(), []);
    assert.equal(await service.store.keys.findByHash(hashKey(key.key)), null);
    assert.equal((await s.get('/api/v2/me', key.key)).status, 401, 'its key stopped working');
    assert.deepEqual(await service.store.people.list(trialco.id), []);
    assert.equal(await service.store.people.account('ann@rcpt.test'), null, 'its people belonged nowhere else');
    assert.ok(await service.workspaces.byName('quiet'), 'never warned: kept');
    assert.ok(await service.workspaces.byName('paid'));
    await s.sink.waitFor(invitations + 3);
    assert.equal(s.sink.received.length, invitations + 3, 'nothing else mailed: not the member, not the paid or ownerless workspaces');
    assert.deepEqual(warningsTo(), [
      'ann@rcpt.test trialco: its data is deleted in 1 day',
      'ann@rcpt.test trialco: its data is deleted in 14 days',
      'ann@rcpt.test trialco: its data is deleted in 7 days',
    ]);
    assert.equal((await service.store.workspaces.trialWarnings(quiet.id)).sent, 0, 'no owner: nothing recorded');
    assert.ok(
      s.logs.some((l) => /trial: workspace quiet has no owner to warn/.test(l)),
      s.logs.join('\n'),
    );
    // Not counted against the operator's plan.
    assert.equal((await service.workspaces.usage('acme')).quotas.find((q) => q.kind === 'api_sends' && q.window === 'day')!.used, 0);
  });
}
