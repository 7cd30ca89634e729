// The daemon's key cache on Postgres: it really caches, NOTIFY from a revoke in another process
// drops the entry, and with its LISTEN connection gone it steps aside rather than serve stale keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PgStore, createPool } from '../../../src/store/postgres/pg-store.js';
import { silentLog } from '../../../src/log.js';
import { TEST_DATABASE_URL, freshSchemaUrl, pgLocation } from '../../helpers/pg.js';

async function until(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

if (TEST_DATABASE_URL) {
  test('postgres key cache: cached, dropped by NOTIFY, off while LISTEN is down', async (t) => {
    const url = await freshSchemaUrl(t);
    const loc = pgLocation(url);
    const writer = PgStore.create(loc, { log: silentLog });
    await writer.migrate();
    const daemon = PgStore.create(loc, { log: silentLog, cacheKeys: true });
    const sql = createPool(loc, silentLog);
    t.after(async () => {
      await Promise.all([writer.close(), daemon.close(), sql.end()]);
    });
    const ws = await writer.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'trial', created_at: new Date().toISOString() });
    const key = await writer.keys.create({ id: randomUUID(), workspace_id: ws.id, name: 'k', scopes: ['send'], prefix: 'svc_0', hash: 'a'.repeat(64), created_at: new Date().toISOString(), revoked_at: null });

    // Once the LISTEN is up, a look-up is cached: a change made behind its back (no NOTIFY) is not seen.
    let round = 0;
    assert.ok(await until(async () => {
      const before = (await daemon.keys.findByHash(key.hash))?.key.name;
      await sql.query(`UPDATE api_keys SET name = $2 WHERE id = $1`, [key.id, `silent-${++round}`]);
      return (await daemon.keys.findByHash(key.hash))?.key.name === before;
    }), 'look-ups are served from the cache');

    // A revoke from another process reaches the cache through NOTIFY.
    await writer.keys.revoke(ws.id, key.id, new Date().toISOString());
    assert.ok(await until(async () => (await daemon.keys.findByHash(key.hash))?.key.revoked_at !== null), 'revocation seen');

    // A plan change drops the workspace's entries.
    await writer.workspaces.setPlan(ws.id, 'pro');
    assert.ok(await until(async () => (await daemon.keys.findByHash(key.hash))?.workspace.plan === 'pro'), 'plan change seen');

    // Kill the LISTEN connection: until it is back, every look-up reads Postgres.
    await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN svc_invalidate%' AND datname = current_database()`);
    await sql.query(`UPDATE api_keys SET name = 'after-kill' WHERE id = $1`, [key.id]);
    assert.ok(await until(async () => (await daemon.keys.findByHash(key.hash))?.key.name === 'after-kill'), 'no stale answer while LISTEN is down');
  });
}
