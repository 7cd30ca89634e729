import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PgStore, createPool } from '../../../src/store/postgres/pg-store.js';
import { latestVersion } from '../../../src/store/postgres/migrations.js';
import { isSvcError } from '../../../src/errors.js';
import { silentLog } from '../../../src/log.js';
import { openStore } from '../../../src/store/open.js';
import { TEST_DATABASE_URL, behindSchemaUrl, freshSchemaUrl, migratedSchemaUrl, pgLocation } from '../../helpers/pg.js';
import { storeConformance } from './conformance/index.js';
import { ENDED_AT_ONCE, PURGED, WITH_THEIR_PARENT } from '../../../src/store/postgres/workspaces.js';

/** A fresh schema, migrated, and a pool on it. */
async function migrated(t: { after(fn: () => unknown): void }) {
  const url = await migratedSchemaUrl(t);
  return { loc: pgLocation(url), pool: createPool(pgLocation(url), silentLog) };
}

// Without a Postgres the runner has said so in one line, and these suites are not registered.
if (TEST_DATABASE_URL) {
  storeConformance<string>({
    name: 'postgres',
    backing: async (t) => migratedSchemaUrl(t),
    open: (url) => openStore(pgLocation(url), { role: 'admin', log: silentLog }),
  });

  test('postgres: a schema that is behind is refused with a message naming svc migrate', async (t) => {
    const url = await behindSchemaUrl(t);
    await assert.rejects(
      openStore(pgLocation(url), { role: 'admin', log: silentLog }),
      (e) => isSvcError(e) && e.kind === 'schema_behind' && /svc migrate/.test(e.message),
    );
    const s = await openStore(pgLocation(url), { role: 'serve', log: silentLog, migrate: true });
    t.after(() => s.close());
    assert.deepEqual(await s.workspaces.list(), []);
  });

  test("postgres: a workspace's deletion names every table with a workspace_id", async (t) => {
    const { pool: c } = await migrated(t);
    t.after(() => c.end());
    const { rows } = await c.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE column_name = 'workspace_id' AND table_schema = current_schema() ORDER BY 1`,
    );
    assert.ok(rows.length > 10);
    assert.deepEqual(
      rows.map((r) => r.table_name),
      [...ENDED_AT_ONCE, ...PURGED, ...WITH_THEIR_PARENT].sort(),
    );
  });

  test('postgres: an empty schema is set up by the first store that opens it', async (t) => {
    const url = await freshSchemaUrl(t);
    const s = await openStore(pgLocation(url), { role: 'admin', log: silentLog });
    t.after(() => s.close());
    assert.deepEqual(await s.workspaces.list(), []);
  });

  test('postgres: a schema newer than this build is refused too', async (t) => {
    const { loc, pool: c } = await migrated(t);
    await c.query(`INSERT INTO svc_migrations (version, name) VALUES (999, '0999_future')`);
    await c.end();
    await assert.rejects(openStore(loc, { role: 'admin', log: silentLog }), (e) => isSvcError(e) && /newer than this svc/.test(e.message));
  });

  test('postgres: two processes migrating at once take turns and apply each migration once', async (t) => {
    const url = await freshSchemaUrl(t);
    const stores = Array.from({ length: 4 }, () => PgStore.create(pgLocation(url), { log: silentLog }));
    t.after(() => Promise.all(stores.map((s) => s.close())));
    const results = await Promise.all(stores.map((s) => s.migrate()));
    const want = await latestVersion();
    assert.deepEqual(results.flatMap((r) => r.applied).length, want);
    for (const r of results) assert.equal(r.version, want);
    // Migrating again does nothing.
    assert.deepEqual((await stores[0]!.migrate()).applied, []);
  });

  test('postgres: unreachable is store_unavailable with no password in the message', async () => {
    const loc = pgLocation('postgres://svc:hunter2@127.0.0.1:1/test', { connectTimeoutMs: 500 });
    await assert.rejects(
      openStore(loc, { role: 'admin', log: silentLog }),
      (e) => isSvcError(e) && e.kind === 'store_unavailable' && !e.message.includes('hunter2'),
    );
  });
}

if (TEST_DATABASE_URL) {
  test('postgres: one damaged DKIM ciphertext disables that domain only; the others read whole', async (t) => {
    const { randomBytes, randomUUID } = await import('node:crypto');
    const url = await freshSchemaUrl(t);
    const key = randomBytes(32);
    const s = PgStore.create(pgLocation(url, { encryptionKey: key }), { log: silentLog });
    t.after(() => s.close());
    await s.migrate();
    const ws = await s.workspaces.create({ id: randomUUID(), name: 'acme', plan: 'scale', created_at: '2026-01-01T00:00:00.000Z' });
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEsecret\n-----END PRIVATE KEY-----\n';
    for (const name of ['bad.test', 'good.test']) {
      await s.domains.create(
        {
          id: randomUUID(),
          workspace_id: ws.id,
          domain: name,
          status: 'verified',
          token: 't',
          dkim_public_key: 'P',
          dkim_private_key: pem,
          legacy: false,
          dkim_verified: true,
          records: null,
          history: [],
          created_at: '2026-01-01T00:00:00.000Z',
          verified_at: '2026-01-01T00:00:00.000Z',
          checked_at: null,
        },
        null,
      );
    }
    const pool = createPool(pgLocation(url), silentLog);
    t.after(() => pool.end());
    // One character of bad.test's ciphertext changed: the right key, damaged data.
    await pool.query(
      `UPDATE domains SET dkim_private_key = overlay(dkim_private_key placing (CASE WHEN substr(dkim_private_key, length(dkim_private_key) - 2, 1) = 'A' THEN 'B' ELSE 'A' END) from length(dkim_private_key) - 2 for 1) WHERE domain = 'bad.test'`,
    );
    const fresh = PgStore.create(pgLocation(url, { encryptionKey: key }), { log: silentLog });
    t.after(() => fresh.close());
    const good = await fresh.domains.get(ws.id, 'good.test');
    assert.deepEqual([good?.dkim_private_key, good?.key_damaged], [pem, undefined]);
    const bad = await fresh.domains.get(ws.id, 'bad.test');
    assert.deepEqual([bad?.dkim_private_key, bad?.dkim_verified, bad?.key_damaged], ['', false, true]);
    assert.equal((await fresh.domains.listAll()).length, 2);
  });
}

if (TEST_DATABASE_URL) {
  test('postgres: the STARTTLS private key and the tracked-link key are sealed with the operator key (plaintext ones at start), read back whole', async (t) => {
    const { randomBytes } = await import('node:crypto');
    const url = await freshSchemaUrl(t);
    const plain = PgStore.create(pgLocation(url), { log: silentLog });
    await plain.migrate();
    await plain.tls.saveIfAbsent({ cert: 'CERT', key: 'TLSsecret', created_at: '2026-01-01T00:00:00.000Z' });
    await plain.secrets.keep('tracked-links', 'LINKsecret');
    await plain.close();
    const key = randomBytes(32);
    const sealed = PgStore.create(pgLocation(url, { encryptionKey: key }), { log: silentLog });
    t.after(() => sealed.close());
    await sealed.ready();
    assert.equal((await sealed.tls.get())?.key, 'TLSsecret');
    assert.equal(await sealed.secrets.keep('tracked-links', 'other'), 'LINKsecret');
    const pool = createPool(pgLocation(url), silentLog);
    t.after(() => pool.end());
    const rows = [
      ...(await pool.query(`SELECT key AS v FROM tls_identity`)).rows,
      ...(await pool.query(`SELECT value AS v FROM service_secrets`)).rows,
    ] as Array<{ v: string }>;
    assert.equal(rows.length, 2);
    for (const r of rows) assert.match(r.v, /^enc:v1:/);
    // Without the key: refused at start.
    const without = PgStore.create(pgLocation(url), { log: silentLog });
    t.after(() => without.close());
    await assert.rejects(
      without.ready(),
      (e) =>
        isSvcError(e) &&
        e.kind === 'store_locked' &&
        /STARTTLS private key and the tracked-link key of this store are encrypted/.test(e.message),
    );
  });
}
