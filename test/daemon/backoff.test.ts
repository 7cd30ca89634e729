// Back-off per destination through the daemon's delivery worker: a recipient domain
// whose MX answers 421 at the greeting is paused; mail queued for it meanwhile waits without a
// connection (the claim leaves it), then goes once the pause is over and the MX takes mail; the
// log says so, and `explain` tells why a message waits. The clock is moved, never slept on; the
// waits are deadlines only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { mail, sending } from '../helpers/sending.js';
import { until as waitFor } from '../helpers/until.js';

const until = (ok: () => Promise<boolean> | boolean, what: string) =>
  waitFor(
    what,
    async () => await ok(),
    (v) => v,
    undefined,
    25,
  );

test('a destination answering 421 is paused: later mail to it waits without a connection, then goes when the pause ends', async (t) => {
  const clock = new ManualClock(new Date());
  const s = await sending(t, { clock });
  const { service } = s.daemon;
  s.sink.greeting = { code: 421, message: '4.7.0 Too many connections, slow down' };
  const first = await s.post(mail(['jane@rcpt.test']));
  await until(async () => (await service.store.messages.attempts(s.ws.id, first.body.id)).length > 0, 'the first attempt');
  const tried = s.sink.connections;
  assert.ok(
    s.logs.some((l) => /delivery paused destination=rcpt\.test until=\S+ reply="421 4\.7\.0 Too many connections, slow down"/.test(l)),
    s.logs.join('\n'),
  );
  const explained = await service.explain(s.ws, first.body.id);
  assert.match(
    explained.timeline.at(-1)!.detail,
    /deferred as a whole, so the daemon also holds every message to that destination for 30 s/,
  );

  // Queued during the pause: claimed by nobody, no connection (the worker polls every 100 ms).
  const second = await s.post(mail(['bob@rcpt.test']));
  for (let i = 0; i < 10; i++) await service.store.queue.depth().then(() => new Promise((r) => setTimeout(r, 100)));
  assert.equal(s.sink.connections, tried, 'no connection to a paused destination');
  assert.equal((await service.store.messages.attempts(s.ws.id, second.body.id)).length, 0);

  // The pause ends; the MX takes mail again: the waiting message goes.
  s.sink.greeting = null;
  clock.advance(31_000);
  await until(() => s.sink.received.some((m) => m.to.includes('bob@rcpt.test')), 'the waiting message at the sink');
});
