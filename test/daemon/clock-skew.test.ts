// Two daemons on one Postgres whose clocks are 10 minutes ahead and 10 minutes behind: leases are
// measured with the database's clock, so neither takes a job the other is handing off, and every
// message reaches the sink once. New jobs are due at once for both (neither waits out the skew).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Clock } from '../../src/clock.js';
import { sending } from '../helpers/sending.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { headers } from '../helpers/sink.js';

const skewed = (ms: number): Clock => ({ now: () => new Date(Date.now() + ms) });

test(
  'two daemons with clocks 10 minutes apart either way deliver each message once',
  { skip: TEST_DATABASE_URL ? false : 'no Postgres' },
  async (t) => {
    const url = await migratedSchemaUrl(t);
    const ahead = await sending(t, { store: pgLocation(url), clock: skewed(10 * 60_000) });
    // Slow hand-offs, so each daemon holds leases while the other looks for work.
    ahead.sink.dataDelayMs = 150;
    const behind = await startTestDaemon(t, {
      store: pgLocation(url),
      clock: skewed(-10 * 60_000),
      env: {
        SVC_DNS_SERVERS: ahead.dns.server,
        SVC_DNS_TIMEOUT: '300',
        SVC_DIRECT_PORT: String(ahead.sink.port),
        SVC_SMTP_TIMEOUT: '5000',
      },
    });
    const post = (api: string, i: number) =>
      fetch(`${api}/api/v2/emails`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ahead.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: 'hello@acme.test', to: [`r${i}@rcpt.test`], subject: `skew ${i}`, body_text: 'x' }),
      }).then((r) => r.status);
    // Half the sends through each daemon.
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2 ? ahead.api : behind.api, i)));
    assert.deepEqual([...new Set(statuses)], [202]);
    const subjects = () => ahead.sink.received.map((r) => headers(r.raw).get('subject')![0]!);
    for (let i = 0; i < 400 && new Set(subjects()).size < 40; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(new Set(subjects()).size, 40, 'every message arrived');
    // Both queues are empty: nothing is left that could still arrive twice.
    for (let i = 0; i < 100 && (await ahead.daemon.service.store.queue.depth()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await ahead.daemon.service.store.queue.depth(), 0);
    const counts = new Map<string, number>();
    for (const s of subjects()) counts.set(s, (counts.get(s) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no message was delivered twice');
    assert.equal(subjects().length, 40);
  },
);
