// svc status, both backends: nothing running is said (exit 1); beside a daemon the JSON
// document has its listeners, the queue by state, the rates of the last minute and hour, faults,
// the webhook backlog, ticks and domains; piped it is plain lines; on a terminal a live view that
// q leaves. A stopped daemon's report is gone at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { svc, json, serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { noTerminal, onTerminal, unescaped } from '../helpers/terminal.js';
import { until } from '../helpers/until.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { TEST_DATABASE_URL, freshSchemaUrl } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc status beside the daemon: listeners, queue, rates, faults, backlog, ticks, domains`, async (t) => {
    const dns = await fixtureDns(t);
    const s = await sink(t);
    s.refuse('slow@rcpt.test', 451, '4.2.0 try later');
    const store = backend === 'postgres' ? await freshSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const base = ['--store', store, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const none = await svc([...base, 'status', '--json']);
    assert.equal(none.code, 1);
    assert.equal(JSON.parse(none.stdout).running, false);
    assert.match((await svc([...base, 'status'])).stdout, /no svc serve has reported on this store/);

    const d = await serve([...base, '--direct-port', String(s.port)]);
    t.after(() => d.stop('SIGKILL'));
    assert.equal((await postEmail(d, key, 'ok@rcpt.test', 'a')).status, 202);
    assert.equal((await postEmail(d, key, 'slow@rcpt.test', 'b')).status, 202);
    const view = await until(
      'the report of a send and a deferral',
      async () => json(await svc([...base, 'status', '--json'])),
      (v) => v.rates.minute.sent >= 1 && v.rates.minute.deferred >= 1 && v.queue.deferred === 1,
    );
    for (const k of [
      'running',
      'version',
      'uptime_seconds',
      'daemons',
      'listeners',
      'queue',
      'rates',
      'faults',
      'webhooks',
      'ticks',
      'domains',
    ])
      assert.ok(k in view, k);
    assert.equal(view.running, true);
    assert.deepEqual(view.listeners.map((l: { name: string }) => l.name).sort(), ['api', 'mx', 'relay']);
    assert.equal(view.listeners.find((l: { name: string }) => l.name === 'api').url, d.urls.api);
    assert.equal(view.rates.hour.accepted, 2);
    assert.deepEqual(view.faults, []);
    assert.equal(typeof view.webhooks.backlog, 'number');
    assert.ok(view.ticks.some((x: { name: string }) => x.name === 'retention'));
    assert.deepEqual([view.domains.verified, view.domains.failing], [1, []]);
    const plain = await svc([...base, 'status']);
    assert.equal(plain.code, 0);
    assert.match(plain.stdout, /^queue +1 message\(s\): 0 queued, 1 deferred, 0 sending, 0 held/m);
    assert.match(plain.stdout, /^ {2}api +http:\/\/127\.0\.0\.1:\d+/m);

    if (backend === 'file' && !noTerminal) {
      // A terminal: the live view draws the same lines; q leaves it.
      // Once drawn, q (again every half second: a busy machine may draw before it reads keys).
      let pressing: NodeJS.Timeout | undefined;
      const live = await onTerminal({
        args: [...base, 'status'],
        env: { NO_COLOR: '1' },
        onScreen: (shown, keyboard) => {
          if (!pressing && /q or Ctrl-C to leave/.test(shown)) {
            // The view may have ended (its pipe closed) before the next press: that is not an error.
            keyboard.on('error', () => {});
            keyboard.write('q');
            pressing = setInterval(() => keyboard.writable && keyboard.write('q'), 500);
          }
        },
      }).finally(() => clearInterval(pressing));
      assert.equal(live.code, 0, live.out);
      const drawn = unescaped(live.out);
      assert.match(drawn, /q or Ctrl-C to leave/);
      assert.match(drawn, /queue +1 message\(s\)/);
    }

    assert.equal(await d.stop(), 0);
    assert.equal(JSON.parse((await svc([...base, 'status', '--json'])).stdout).running, false, 'a stopped daemon is gone at once');
  });
}
