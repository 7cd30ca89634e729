// The upgrade procedure of docs/operating.md "Upgrades", once, on Postgres: two daemons behind one database
// take mail without a pause while `svc migrate` runs beside them and each is restarted in turn
// (SIGTERM drains it; the other takes the traffic). Every accepted message is delivered, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { svc, json, serve, cliSender, postEmail, type ServeProcess } from '../helpers/cli.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { TEST_DATABASE_URL, freshSchemaUrl } from '../helpers/pg.js';

if (TEST_DATABASE_URL) {
  test('postgres: a rolling restart of two daemons with svc migrate beside them: every accepted message delivered once', async (t) => {
    const dns = await fixtureDns(t);
    const s = await sink(t);
    const url = await freshSchemaUrl(t);
    const base = ['--store', url, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const start = async () => {
      const d = await serve([...base, '--direct-port', String(s.port)]);
      t.after(() => d.stop('SIGKILL'));
      return d;
    };
    const daemons: ServeProcess[] = [await start(), await start()];
    const subjects: string[] = [];
    let n = 0;
    const sendSome = async (count: number) => {
      for (let i = 0; i < count; i++, n++) {
        // The load balancer's turn: whichever daemons are up.
        const d = daemons[n % daemons.length]!;
        const r = await postEmail(d, key, `r${n}@rcpt.test`, `m${n}`);
        assert.equal(r.status, 202);
        subjects.push(`m${n}`);
      }
    };

    await sendSome(10);
    // 1. The new binary's migrations, beside the running daemons (they keep serving).
    const m = await svc([...base, 'migrate', '--json']);
    assert.equal(m.code, 0, m.stderr);
    await sendSome(10);
    // 2. Each daemon in turn: out of the balancer, SIGTERM (drains), the new one started.
    for (let k = 0; k < 2; k++) {
      const [old] = daemons.splice(0, 1);
      const stopping = old!.stop();
      await sendSome(10);
      assert.equal(await stopping, 0, 'a clean stop');
      daemons.push(await start());
      await sendSome(10);
    }
    await s.waitFor(subjects.length, 60_000);
    const got = s.received.map((r) => /^Subject: (\S+)/m.exec(r.raw.toString('latin1'))?.[1]);
    assert.deepEqual([...got].sort(), [...subjects].sort(), 'each accepted message delivered once');
    const version = json(await svc(['version', '--json']));
    assert.equal(typeof version.schema, 'number');
    assert.match(version.sqlite, /^3\./, 'the SQLite better-sqlite3 carries');
  });
}
