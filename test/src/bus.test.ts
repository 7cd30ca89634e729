// The bus between processes: on Postgres a topic published in one process is heard in another
// (NOTIFY on svc_bus over the shared LISTEN connection), never comes back to its sender and never
// reaches a deployment in another schema; on a
// file store a command's topic reaches the daemon over the admin socket, and a command that listens
// hears the daemon's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bus } from '../../src/bus.js';
import type { Topic } from '../../src/model/topic.js';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { RemoteStore } from '../../src/store/file/remote-store.js';
import { socketPath } from '../../src/store/file/admin-protocol.js';
import { silentLog } from '../../src/log.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

/** Resolves with the topics `bus` heard once `n` have arrived; fails (never hangs) after `ms`. */
function heard(bus: Bus, n: number, ms = 20_000): Promise<Topic[]> {
  const got: Topic[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`heard ${got.length} of ${n} topics in ${ms} ms: ${got.join(', ')}`));
    }, ms);
    const off = bus.subscribeAny((t) => {
      got.push(t);
      if (got.length === n) {
        clearTimeout(timer);
        off();
        resolve(got);
      }
    });
  });
}

test('in one process: subscribers of a topic, every-topic subscribers, next() by topic or time', async () => {
  const bus = new Bus();
  let queued = 0;
  bus.subscribe('queued', () => queued++);
  const all = heard(bus, 2);
  const next = bus.next('outboxed', 60_000);
  bus.publish('queued');
  bus.publish('outboxed');
  await next;
  assert.deepEqual(await all, ['queued', 'outboxed']);
  assert.equal(queued, 1);
  // Without the topic, next() ends at its time.
  await bus.next('attempted', 5);
});

if (TEST_DATABASE_URL) {
  test('postgres: a topic published by one process is heard by another, and not echoed to its sender', { timeout: 60_000 }, async (t) => {
    const loc = pgLocation(await migratedSchemaUrl(t));
    const daemonStore = PgStore.create(loc, { log: silentLog, cacheKeys: true });
    const commandStore = PgStore.create(loc, { log: silentLog });
    t.after(() => Promise.all([daemonStore.close(), commandStore.close()]));
    const daemon = new Bus();
    daemon.connect(daemonStore.events, { hear: true });
    // Another deployment in another schema of the same database hears none of it.
    const elsewhereStore = PgStore.create(pgLocation(await migratedSchemaUrl(t)), { log: silentLog, cacheKeys: true });
    t.after(() => elsewhereStore.close());
    const elsewhere = new Bus();
    elsewhere.connect(elsewhereStore.events, { hear: true });
    const strayed: Topic[] = [];
    elsewhere.subscribeAny((x) => strayed.push(x));
    const command = new Bus();
    command.connect(commandStore.events, { hear: false });
    // Wait for the daemon's LISTEN: the command publishes until one arrives.
    const first = heard(daemon, 1);
    const poke = setInterval(() => command.publish('queued'), 50);
    try {
      assert.deepEqual(await first, ['queued']);
    } finally {
      clearInterval(poke);
    }
    // From here on, everything the daemon hears.
    const got: Topic[] = [];
    daemon.subscribeAny((x) => got.push(x));
    const until = async (topic: Topic) => {
      for (let i = 0; !got.includes(topic); i++) {
        if (i === 100) assert.fail(`${topic} was not heard in 100 tries (heard: ${got.join(', ')})`);
        command.publish(topic);
        await daemon.next(topic, 200);
      }
    };
    // The daemon's own topic is delivered here once; its NOTIFY comes back and is dropped (two
    // later rounds from the command make sure it would have arrived by then).
    daemon.publish('outboxed');
    await until('attempted');
    const seenOutboxed = got.filter((x) => x === 'outboxed').length;
    await until('queued');
    assert.equal(seenOutboxed, 1);
    assert.deepEqual(strayed, [], 'another schema heard nothing');
    assert.equal(got.filter((x) => x === 'outboxed').length, 1, `echoed: ${got.join(', ')}`);
  });
}

test(
  'file store: a command announces to the daemon over the admin socket, and hears the daemon when it listens',
  { timeout: 60_000 },
  async (t) => {
    const d = await startTestDaemon(t, { deliver: false });
    const dir = d.daemon.service.store.describe.replace(/^file:/, '');
    const remote = await RemoteStore.connect(socketPath(dir));
    t.after(() => remote.close());
    const command = new Bus();
    command.connect(remote.events!, { hear: true });
    const daemonHeard = heard(d.daemon.service.bus, 1);
    command.publish('queued');
    assert.deepEqual(await daemonHeard, ['queued']);
    // A round trip proves the listen request is in before the daemon publishes.
    await remote.workspaces.list();
    const commandHeard = heard(command, 1);
    d.daemon.service.bus.publish('attempted');
    assert.deepEqual(await commandHeard, ['attempted']);
  },
);
