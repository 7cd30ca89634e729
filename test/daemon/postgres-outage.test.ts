// Postgres going away under a running daemon: 503s with a reason, never a crash, and recovery on
// its own when the database is back. The outage is a proxy the test cuts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PgStore } from '../../src/store/postgres/pg-store.js';
import { silentLog } from '../../src/log.js';
import { TEST_DATABASE_URL, freshSchemaUrl, migratedSchemaUrl, pgLocation, pgProxy, COMMIT_MESSAGE } from '../helpers/pg.js';
import { sending } from '../helpers/sending.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';

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

if (TEST_DATABASE_URL) {
  test('a send whose statement committed but got no answer in time is 202, not a false 503; a late one is answered as the store holds it', async (t) => {
    const proxy = await pgProxy(t);
    const url = await migratedSchemaUrl(t);
    const s = await sending(t, {
      deliver: false,
      store: pgLocation(proxy.through(url), { connectTimeoutMs: 1000, statementTimeoutMs: 1000 }),
    });
    const body = (subject: string) => ({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject, body_text: 'x' });
    // Warm the look-up caches (key, sender), so that the send itself is the statement that stalls.
    assert.equal((await s.post(body('warm'))).status, 202);

    // The send reaches Postgres and commits, but the answer is held past the read timeout (2 s).
    proxy.freezeRepliesAfter(['"send_contents"', COMMIT_MESSAGE], 3500);
    const sent = s.post(body('committed'));
    const r = await sent;
    assert.equal(r.status, 202, JSON.stringify(r.body));

    // The send does not reach Postgres in time; when the link thaws, its statement and the fences
    // arrive together, and whichever runs first decides: the answer says what the store holds.
    proxy.freeze('requests');
    const lost = s.post(body('late'));
    setTimeout(() => proxy.thaw('requests'), 3500);
    const r2 = await lost;
    assert.ok(r2.status === 202 || r2.status === 503, JSON.stringify(r2.body));

    const direct = PgStore.create(pgLocation(url), { log: silentLog });
    t.after(() => direct.close());
    await new Promise((res) => setTimeout(res, 500));
    const subjects = (await direct.messages.list(s.ws.id, { limit: 10, offset: 0 })).data.map((m) => m.subject).sort();
    assert.deepEqual(
      subjects,
      r2.status === 202 ? ['committed', 'late', 'warm'] : ['committed', 'warm'],
      `answered ${r2.status}: what was answered 202 is there, what was answered 503 is not`,
    );
    console.log(`# the late send was answered ${r2.status}`);
  });
}

if (TEST_DATABASE_URL) {
  test('relay during a Postgres stall longer than the REST fence window: the session is held and answered 250 for what was stored, never 451; the connection limit waits for the answer', async (t) => {
    const proxy = await pgProxy(t);
    const url = await migratedSchemaUrl(t);
    // The REST window would give up after 1.5 s; the relay's (20 s here, 4 minutes by default) waits.
    const s = await sending(t, {
      deliver: false,
      env: { SVC_RELAY_CONNECTION_LIMIT: '2' },
      store: pgLocation(proxy.through(url), { connectTimeoutMs: 1000, statementTimeoutMs: 1000, fenceMs: { api: 1500, relay: 20_000 } }),
    });
    const { client } = await RawSmtp.open(s.daemon.url('relay'));
    await client.cmd('EHLO client.test');
    assert.equal(await client.cmd(`AUTH PLAIN ${plain(s.key)}`), '235 2.7.0 Authentication successful');
    const message = async (subject: string, beforeEnd: () => void = () => {}) => {
      assert.match(await client.cmd('MAIL FROM:<hello@acme.test>'), /^250/);
      assert.match(await client.cmd('RCPT TO:<jane@rcpt.test>'), /^250/);
      assert.match(await client.cmd('DATA'), /^354/);
      beforeEnd();
      return client.cmd(`Subject: ${subject}\r\nTo: jane@rcpt.test\r\n\r\nx\r\n.`);
    };
    // Warms the look-ups, so that the accept is the statement that stalls.
    assert.match(await message('warm'), /^250 2\.0\.0 OK: queued as \S+$/);
    // The accept reaches Postgres and commits; its answer, and every fence's, is held for 5 s:
    // past the REST window and past the session's 2 s limit.
    const answer = await message('stalled', () => proxy.freezeRepliesAfter(['"send_contents"', COMMIT_MESSAGE], 5000));
    assert.match(answer, /^250 2\.0\.0 OK: queued as \S+$/);
    // Then the time limit that waited says its 421 and closes.
    assert.equal((await client.reply()).join(), '421 4.4.2 Connection time limit reached, closing');
    const direct = PgStore.create(pgLocation(url), { log: silentLog });
    t.after(() => direct.close());
    assert.deepEqual((await direct.messages.list(s.ws.id, { limit: 10, offset: 0 })).data.map((m) => m.subject).sort(), [
      'stalled',
      'warm',
    ]);
  });
}
