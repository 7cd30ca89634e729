// A worker's leases are renewed while its hand-offs run (a heartbeat), so a slow hand-off is never
// taken by another worker, and a crashed worker's jobs come back once their short lease ends.
// Leases here are a few hundred milliseconds of real time: on Postgres they are measured with the
// database's clock, which a test cannot move.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { deliveryWorker } from '../../daemon/workers/outbound-queue.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`leases: a slow hand-off keeps its job by heartbeat; a dead worker's job comes back after its lease (${backend})`, async (t) => {
    const s = await sending(t, { deliver: false, ...(backend === 'postgres' ? { store: pgLocation(await migratedSchemaUrl(t)) } : {}) });
    const { store } = s.daemon.service;
    const now = () => new Date().toISOString();
    // A hand-off that takes 5 leases' time.
    s.sink.dataDelayMs = 1500;
    assert.equal((await s.post({ from: 'hello@acme.test', to: ['slow@rcpt.test'], subject: 'slow', body_text: 'x' })).status, 202);
    const worker = deliveryWorker(s.daemon.service, { start: true, leaseMs: 300 });
    t.after(() => worker.stop());
    // Give it time to claim the job and start handing it off.
    await sleep(100);
    // Another worker looks for work all the while: the job stays with its owner.
    let stolen = 0;
    for (let i = 0; i < 12; i++) {
      stolen += (await store.queue.claim('thief', now(), 300, 10)).length;
      await sleep(100);
    }
    assert.equal(stolen, 0, 'the heartbeat kept the lease');
    await worker.stop();
    assert.equal(s.sink.received.length, 1);

    // A worker that dies holding a job (claimed, never completed, never renewed) loses it when
    // its lease ends.
    s.sink.dataDelayMs = 0;
    assert.equal((await s.post({ from: 'hello@acme.test', to: ['orphan@rcpt.test'], subject: 'orphan', body_text: 'x' })).status, 202);
    const held = await store.queue.claim('dead', now(), 300, 10);
    assert.equal(held.length, 1);
    assert.deepEqual(await store.queue.claim('heir', now(), 300, 10), [], 'still leased');
    await sleep(350);
    assert.deepEqual(
      (await store.queue.claim('heir', now(), 300, 10)).map((j) => j.id),
      held.map((j) => j.id),
    );
  });
}
