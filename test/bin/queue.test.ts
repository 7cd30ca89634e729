// `svc queue` beside a running daemon, both backends: deferred mail listed with its
// attempts, last error and next attempt, narrowed by recipient, domain and age; retried now (one
// message, then --all --domain after an "outage"), delivered without waiting for its backoff;
// cancelled, which bounces it with a reason and suppresses nobody; wrong usage and unknown ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { svc, json, serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { TEST_DATABASE_URL, freshSchemaUrl } from '../helpers/pg.js';

type Row = {
  id: string;
  to: string;
  state: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  domain: string;
  job_id: string;
  age_seconds: number;
};

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc queue list, show, retry and cancel beside the daemon`, async (t) => {
    const dns = await fixtureDns(t);
    const s = await sink(t);
    // Deferred until the refusals run out (the first attempt of each, and of the later two).
    s.refuse('slow@rcpt.test', 451, '4.2.0 try later', 1);
    s.refuse('stuck@rcpt.test', 451, '4.2.0 try later');
    s.refuse('a@rcpt.test', 451, '4.3.2 outage', 1);
    s.refuse('b@rcpt.test', 451, '4.3.2 outage', 1);
    const store = backend === 'postgres' ? await freshSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const base = ['--store', store, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const d = await serve([...base, '--direct-port', String(s.port)]);
    t.after(() => d.stop('SIGKILL'));
    const q = async (args: string[] = []) => json<Row[]>(await svc([...base, 'queue', 'list', '--json', ...args]));

    const slow = (await postEmail(d, key, 'slow@rcpt.test', 'slow')).body.id;
    const stuck = (await postEmail(d, key, 'stuck@rcpt.test', 'stuck')).body.id;
    const rows = await until(
      'two deferred',
      () => q(),
      (r) => r.length === 2 && r.every((x) => x.state === 'deferred'),
    );
    const bySlow = rows.find((r) => r.id === slow)!;
    assert.deepEqual([bySlow.to, bySlow.attempts, bySlow.domain], ['slow@rcpt.test', 1, 'rcpt.test']);
    assert.match(bySlow.last_error!, /^451 4\.2\.0 try later/);
    assert.ok(Date.parse(bySlow.next_attempt_at!) > Date.now(), 'due again later (its backoff)');
    assert.deepEqual(
      (await q(['--recipient', 'SLOW@'])).map((r) => r.id),
      [slow],
    );
    assert.equal((await q(['--domain', 'rcpt.test'])).length, 2);
    assert.deepEqual(await q(['--domain', 'elsewhere.test']), []);
    assert.deepEqual(await q(['--older-than', '1h']), []);
    assert.deepEqual(await q(['--workspace', 'acme', '--limit', '1']).then((r) => r.length), 1);
    const shown = json<Row>(await svc([...base, 'queue', 'show', slow, '--json']));
    assert.deepEqual([shown.id, shown.state, shown.attempts], [slow, 'deferred', 1]);
    const human = await svc([...base, 'queue', 'list']);
    assert.match(human.stdout, /deferred\s+\S+\s+1\s+slow@rcpt\.test/);

    // Retry now: delivered at once, not after its backoff.
    assert.deepEqual(json(await svc([...base, 'queue', 'retry', slow, '--json'])), { retried: 1, busy: 0 });
    await until(
      'slow sent',
      async () => json(await svc([...base, 'messages', 'show', slow, '--json'])).status,
      (st) => st === 'sent',
    );

    // Cancel: bounced with the reason, a message.bounced like any bounce, nobody suppressed.
    const c = json(await svc([...base, 'queue', 'cancel', stuck, '--reason', 'customer asked', '--json']));
    assert.deepEqual([c.id, c.status, c.error], [stuck, 'bounced', 'svc: cancelled by the operator: customer asked']);
    const m = json(await svc([...base, 'messages', 'show', stuck, '--json']));
    assert.deepEqual([m.status, m.error], ['bounced', 'svc: cancelled by the operator: customer asked']);
    assert.deepEqual(json(await svc([...base, 'suppressions', 'list', '--json'])), []);
    assert.deepEqual(await q(), []);

    // After an outage: everything to a domain, at once.
    const a = (await postEmail(d, key, 'a@rcpt.test', 'a')).body.id;
    const b = (await postEmail(d, key, 'b@rcpt.test', 'b')).body.id;
    await until(
      'both deferred',
      () => q(),
      (r) => r.length === 2 && r.every((x) => x.state === 'deferred'),
    );
    assert.deepEqual(json(await svc([...base, 'queue', 'retry', '--all', '--domain', 'rcpt.test', '--json'])), { retried: 2, busy: 0 });
    for (const id of [a, b])
      await until(
        `${id} sent`,
        async () => json(await svc([...base, 'messages', 'show', id, '--json'])).status,
        (st) => st === 'sent',
      );

    // Wrong usage, unknown and finished messages.
    for (const args of [
      ['queue', 'retry'],
      ['queue', 'retry', a, '--all'],
      ['queue', 'retry', a, '--domain', 'x.test'],
      ['queue', 'list', '--older-than', 'soon'],
    ]) {
      const r = await svc([...base, ...args]);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    const unknown = await svc([...base, 'queue', 'cancel', '00000000-0000-4000-8000-000000000000']);
    assert.deepEqual([unknown.code, unknown.stderr.trim()], [1, 'svc: message 00000000-0000-4000-8000-000000000000 not found']);
    const done = await svc([...base, 'queue', 'cancel', a]);
    assert.deepEqual([done.code, done.stderr.trim()], [1, `svc: message ${a} is not queued: it is sent`]);
  });
}
