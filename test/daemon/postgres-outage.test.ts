// Postgres going away under a running daemon: 503s with a reason, never a crash, and recovery on
// its own when the database is back (issue 3). The outage is a proxy the test cuts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { silentLog } from '../../src/log.js';
import { TEST_DATABASE_URL, freshSchemaUrl, pgLocation, pgProxy } from '../helpers/pg.js';
import { startTestDaemon } from '../helpers/daemon.js';

async function get(url: string, key?: string) {
  const r = await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

/** Polls until the daemon answers 200 again; recovery must come without a restart. */
async function recovered(url: string, key?: string): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if ((await get(url, key)).status === 200) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

async function migrated(t: { after(fn: () => unknown): void }): Promise<string> {
  const url = await freshSchemaUrl(t);
  const s = PgStore.create(pgLocation(url), { log: silentLog });
  await s.migrate();
  await s.close();
  return url;
}

if (TEST_DATABASE_URL) {
  test('postgres cut mid-run: 503 with the reason, then recovery without a restart', async (t) => {
    const proxy = await pgProxy(t);
    const url = await migrated(t);
    const d = await startTestDaemon(t, { store: pgLocation(proxy.through(url), { connectTimeoutMs: 1000, statementTimeoutMs: 2000 }) });
    const key = await d.key();
    assert.equal((await get(`${d.api}/api/v2/me`, key)).status, 200);

    proxy.cut();
    const me = await get(`${d.api}/api/v2/me`, key);
    assert.equal(me.status, 503);
    assert.match(String(me.body.error), /store unavailable/);
    const health = await get(`${d.api}/healthz`);
    assert.equal(health.status, 503);
    assert.equal(health.body.ok, false);
    assert.match(String(health.body.error), /postgres/);
    // Requests that need no store still answer.
    assert.equal((await get(`${d.api}/api/v2/nope`)).status, 404);
    assert.equal((await get(`${d.api}/api/v2/me`)).status, 401);

    proxy.restore();
    assert.ok(await recovered(`${d.api}/api/v2/me`, key), 'answers 200 again');
    assert.equal((await get(`${d.api}/healthz`)).status, 200);
  });

  test('a daemon started while postgres is unreachable comes up, answers 503, and recovers', async (t) => {
    const proxy = await pgProxy(t);
    const url = await migrated(t);
    proxy.cut();
    const d = await startTestDaemon(t, { store: pgLocation(proxy.through(url), { connectTimeoutMs: 1000 }) });
    assert.ok(d.logs.some((l) => /starting anyway/.test(l)));
    assert.equal((await get(`${d.api}/healthz`)).status, 503);
    proxy.restore();
    assert.ok(await recovered(`${d.api}/healthz`));
    const key = await d.key();
    assert.equal((await get(`${d.api}/api/v2/me`, key)).status, 200);
  });
}
