// Poison messages over the real daemon: HTML nested too deeply to compose, from the API (about
// 500 KB) and the relay (5 MB), is bounced at once with the reason, not retried, not suppressed,
// and nothing reaches the recipient's server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending, settled } from '../helpers/sending.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';

const nested = (levels: number) => '<div>'.repeat(levels) + 'deep' + '</div>'.repeat(levels);

test('a message that cannot be composed bounces at once with the reason, and the recipient is not suppressed', async (t) => {
  const s = await sending(t);
  const api = await s.post({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'poison', body_html: nested(45_000) });
  assert.equal(api.status, 202);
  const m = await settled(s, api.body.id);
  assert.equal(m.status, 'bounced');
  assert.match(m.error, /^message could not be composed: its HTML is nested 45000 levels deep \(at most 1000\)$/);

  // 5 MB of nesting through the relay.
  const { client } = await RawSmtp.open(s.daemon.url('relay'));
  t.after(() => client.destroy());
  await client.cmd('EHLO x');
  await client.cmd(`AUTH PLAIN ${plain(s.key)}`);
  await client.cmd('MAIL FROM:<hello@acme.test>');
  await client.cmd('RCPT TO:<bob@rcpt.test>');
  await client.cmd('DATA');
  const body = nested(450_000).replace(/(.{900})/g, '$1\r\n');
  assert.match(
    await client.cmd(`Subject: poison 2\r\nTo: bob@rcpt.test\r\nContent-Type: text/html\r\n\r\n${body}\r\n.`),
    /^250 2\.0\.0 OK: queued as /,
  );
  const listed = (await s.get('/api/v2/messages?recipient=bob')).body.data[0];
  // Read (5 MB), then composed, in a thread of its own after the 250: given longer on a busy machine.
  const relayed = await settled(s, listed.id, 60_000);
  assert.equal(relayed.status, 'bounced');
  assert.match(relayed.error, /^message could not be composed: /);

  // Nothing reached the sink, and both can still be mailed: our failure is not theirs.
  assert.equal(s.sink.received.length, 0);
  assert.deepEqual(await s.daemon.service.store.suppressions.list(s.ws.id), []);
  const ok = await s.post({ from: 'hello@acme.test', to: ['jane@rcpt.test', 'bob@rcpt.test'], subject: 'fine', body_html: '<p>fine</p>' });
  assert.equal(ok.status, 202);
  assert.equal((await settled(s, ok.body.id)).status, 'sent');
  assert.equal(await s.daemon.service.store.queue.depth(), 0, 'nothing left to retry');
});
