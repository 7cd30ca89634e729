// The daemon's look-up cache on Postgres (keys, domains, addresses): it really caches, NOTIFY from another process
// drops the entry, and with its LISTEN connection gone it steps aside rather than serve stale keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PgStore, createPool } from '../../../src/store/postgres/pg-store.js';
import { silentLog } from '../../../src/log.js';
import { created } from './conformance/fixtures.js';
import { TEST_DATABASE_URL, freshSchemaUrl, pgLocation } from '../../helpers/pg.js';

async function until(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/** An admin process that writes, a daemon's store with the cache, and plain SQL behind both. */
async function stores(t: { after(fn: () => unknown): void }) {
  const loc = pgLocation(await freshSchemaUrl(t));
  const writer = PgStore.create(loc, { log: silentLog });
  await writer.migrate();
  const daemon = PgStore.create(loc, { log: silentLog, cacheKeys: true });
  const sql = createPool(loc, silentLog);
  t.after(async () => {
    await Promise.all([writer.close(), daemon.close(), sql.end()]);
  });
  return { writer, daemon, sql };
}

if (TEST_DATABASE_URL) {
  test('postgres key cache: cached, dropped by NOTIFY, off while LISTEN is down', async (t) => {
    const { writer, daemon, sql } = await stores(t);
    const ws = await writer.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'trial', created_at: new Date().toISOString() });
    const key = await writer.keys.create({
      id: randomUUID(),
      workspace_id: ws.id,
      name: 'k',
      scopes: ['send'],
      prefix: 'svc_0',
      hash: 'a'.repeat(64),
      created_at: new Date().toISOString(),
      revoked_at: null,
    });

    // Once the LISTEN is up, a look-up is cached: a change made behind its back (no NOTIFY) is not seen.
    let round = 0;
    assert.ok(
      await until(async () => {
        const before = (await daemon.keys.findByHash(key.hash))?.key.name;
        await sql.query(`UPDATE api_keys SET name = $2 WHERE id = $1`, [key.id, `silent-${++round}`]);
        return (await daemon.keys.findByHash(key.hash))?.key.name === before;
      }),
      'look-ups are served from the cache',
    );

    // A revoke from another process reaches the cache through NOTIFY.
    await writer.keys.revoke(ws.id, key.id, new Date().toISOString());
    assert.ok(await until(async () => (await daemon.keys.findByHash(key.hash))?.key.revoked_at !== null), 'revocation seen');

    // A plan change drops the workspace's entries.
    await writer.workspaces.setPlan(ws.id, 'pro');
    assert.ok(await until(async () => (await daemon.keys.findByHash(key.hash))?.workspace.plan === 'pro'), 'plan change seen');

    // Kill the LISTEN connection: until it is back, every look-up reads Postgres.
    await sql.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN svc_invalidate%' AND datname = current_database()`,
    );
    await sql.query(`UPDATE api_keys SET name = 'after-kill' WHERE id = $1`, [key.id]);
    assert.ok(
      await until(async () => (await daemon.keys.findByHash(key.hash))?.key.name === 'after-kill'),
      'no stale answer while LISTEN is down',
    );
  });
}

if (TEST_DATABASE_URL) {
  test('postgres sender cache: domains and addresses cached; changes from any process are seen', async (t) => {
    const { writer, daemon, sql } = await stores(t);
    const at = new Date().toISOString();
    const ws = await writer.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'scale', created_at: at });
    const d = await created(
      writer.domains.create(
        {
          id: randomUUID(),
          workspace_id: ws.id,
          domain: 'acme.test',
          status: 'verified',
          token: 't',
          dkim_public_key: 'P',
          dkim_private_key: 'K',
          legacy: false,
          dkim_verified: true,
          records: null,
          history: [],
          created_at: at,
          verified_at: at,
          checked_at: null,
        },
        null,
      ),
    );
    // Not there yet: "none" is cached too, and an add from another process ends that.
    let round = 0;
    assert.ok(
      await until(async () => {
        await daemon.addresses.get(ws.id, `x${round}@acme.test`);
        await sql.query(
          `INSERT INTO addresses (id, workspace_id, domain_id, address, status, created_at) VALUES ($1, $2, $3, $4, 'active', now())`,
          [randomUUID(), ws.id, d.id, `x${round}@acme.test`],
        );
        return (await daemon.addresses.get(ws.id, `x${round++}@acme.test`)) === null;
      }),
      'look-ups are served from the cache',
    );
    const a = await created(
      writer.addresses.create(
        { id: randomUUID(), workspace_id: ws.id, domain_id: d.id, address: 'hello@acme.test', status: 'active', created_at: at },
        null,
      ),
    );
    assert.ok(
      await until(async () => (await daemon.addresses.get(ws.id, 'hello@acme.test'))?.status === 'active'),
      'an added address is seen',
    );
    await writer.addresses.setStatus(ws.id, a.id, 'disabled');
    assert.ok(
      await until(async () => (await daemon.addresses.get(ws.id, 'hello@acme.test'))?.status === 'disabled'),
      'a disabled address is seen',
    );
    assert.equal((await daemon.domains.get(ws.id, 'acme.test'))?.status, 'verified');
    await writer.domains.remove(ws.id, d.id);
    assert.ok(await until(async () => (await daemon.domains.get(ws.id, 'acme.test')) === null), 'a removed domain is seen');
    // The daemon's own writes are seen by it at once.
    const d2 = await created(daemon.domains.create({ ...d, id: randomUUID() }, null));
    assert.equal((await daemon.domains.get(ws.id, 'acme.test'))?.id, d2.id);
  });
}

/**
 * Holds back the notifications of the daemon's LISTEN connection: its Postgres backend is stopped
 * (SIGSTOP) until the returned function is called, so a write's own NOTIFY cannot come back in time
 * to hide a cache that forgot to drop the entry itself. Null when that backend is not a process here.
 */
async function holdNotifications(sql: ReturnType<typeof createPool>): Promise<(() => void) | null> {
  const { rows } = await sql.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE query ILIKE 'LISTEN svc_invalidate%' AND datname = current_database()`,
  );
  if (rows.length !== 1) return null;
  const pid = rows[0]!.pid;
  try {
    process.kill(pid, 'SIGSTOP');
  } catch {
    return null;
  }
  return () => process.kill(pid, 'SIGCONT');
}

if (TEST_DATABASE_URL) {
  test("postgres key cache: a daemon's own plan change, revoke and workspace deletion are seen by it at once", async (t) => {
    const { daemon, sql } = await stores(t);
    const at = new Date().toISOString();
    const keyOf = async (name: string, hash: string) => {
      const ws = await daemon.workspaces.create({ id: randomUUID(), name, plan: 'trial', created_at: at });
      const key = await daemon.keys.create({
        id: randomUUID(),
        workspace_id: ws.id,
        name: 'k',
        scopes: ['send'],
        prefix: 'svc_0',
        hash,
        created_at: at,
        revoked_at: null,
      });
      return { ws, key };
    };
    const a = await keyOf('plan', 'b'.repeat(64));
    const b = await keyOf('gone', 'c'.repeat(64));
    // Both cached: once the LISTEN is up, a change behind the cache's back (no NOTIFY) is not seen.
    // Each round renames the keys anew, so a round before the LISTEN was up (which read and cached
    // the last name) cannot make the next ones fail.
    let round = 0;
    const both = () => Promise.all([a, b].map((x) => daemon.keys.findByHash(x.key.hash)));
    assert.ok(
      await until(async () => {
        const before = await both();
        const name = `silent-${++round}`;
        await sql.query(`UPDATE api_keys SET name = $1`, [name]);
        const after = await both();
        return after.every((r, i) => r !== null && r.key.name !== name && r.key.name === before[i]?.key.name);
      }),
      'look-ups are served from the cache',
    );
    const release = await holdNotifications(sql);
    if (!release) return t.skip('the LISTEN backend is not a process of this machine: its notifications cannot be held back');
    // Let go before anything else (closing the store waits on that backend).
    try {
      await daemon.workspaces.setPlan(a.ws.id, 'pro');
      assert.equal((await daemon.keys.findByHash(a.key.hash))?.workspace.plan, 'pro', 'plan change');
      await daemon.keys.revoke(a.ws.id, a.key.id, at);
      assert.notEqual((await daemon.keys.findByHash(a.key.hash))?.key.revoked_at ?? null, null, 'revoke');
      assert.ok(await daemon.workspaces.markDeleted(b.ws.id, at, 'test'));
      assert.equal(await daemon.keys.findByHash(b.key.hash), null, 'workspace deleted: its key stops');
    } finally {
      release();
    }
  });
}
