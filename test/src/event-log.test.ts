import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { EventLog } from '../../src/event-log.js';
import { daemonLog } from '../../daemon/log.js';

test('mail log: every delivery is a line; a fault repeats at most once in 10 s, the next line saying how many were held', () => {
  const lines: string[] = [];
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const log = daemonLog({ format: 'text', level: 'info', write: (l) => lines.push(l), now: () => clock.now().getTime() });
  const ev = new EventLog(log);
  ev.event('info', 'delivery', { message: 'm1', domain: 'rcpt.test', reply: '250 2.0.0 Ok: queued as X' });
  for (let i = 2; i <= 500; i++) ev.event('info', 'delivery', { message: `m${i}`, domain: 'rcpt.test', reply: '250 ok' });
  assert.equal(lines.length, 500, 'what happened to mail is never held back');
  assert.equal(lines[0], '2026-03-01T12:00:00.000Z svc: delivery message=m1 domain=rcpt.test reply="250 2.0.0 Ok: queued as X"\n');
  for (let i = 0; i < 112; i++)
    ev.event('warn', 'relay login-refused', { ip: '127.0.0.1', reply: '535 5.7.8 nope\r\ninjected: yes \x1b]0;x\x07' });
  assert.equal(lines.length, 501);
  assert.equal(
    lines[500],
    '2026-03-01T12:00:00.000Z svc: warn: relay login-refused ip=127.0.0.1 reply="535 5.7.8 nope injected: yes \\u001b]0;x\\u0007"\n',
    'one line, control characters shown',
  );
  // The same fault with another number is the same kind of line.
  log.error('store: connect ECONNREFUSED 127.0.0.1:5432 (attempt 1)');
  log.error('store: connect ECONNREFUSED 127.0.0.1:5432 (attempt 2)');
  assert.equal(lines.length, 502);
  clock.advance(10_000);
  ev.event('warn', 'relay login-refused', { ip: '127.0.0.1', reply: '535' });
  assert.equal(
    lines[502],
    '2026-03-01T12:00:10.000Z svc: warn: relay login-refused ip=127.0.0.1 reply=535 (and 111 more like it in the 10 s before)\n',
  );
});

test('mail log as JSON: one object per line with time, level, msg and the fields; the least level changes live', () => {
  const lines: string[] = [];
  const log = daemonLog({ format: 'json', level: 'info', write: (l) => lines.push(l) });
  log.debug!('not written at info');
  log.info('delivery', { message: 'm1', to: 'a@b.test', status: 'sent', dsn: '2.0.0' });
  log.setLevel('warn');
  log.info('not written at warn');
  log.warn('outbound: refused', { repeated: undefined });
  log.setLevel('debug');
  log.debug!('written at debug');
  const docs = lines.map((l) => JSON.parse(l));
  assert.deepEqual(
    docs.map((d) => [d.level, d.msg]),
    [
      ['info', 'delivery'],
      ['warn', 'outbound: refused'],
      ['debug', 'written at debug'],
    ],
  );
  assert.match(docs[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual([docs[0].message, docs[0].to, docs[0].status, docs[0].dsn], ['m1', 'a@b.test', 'sent', '2.0.0']);
});
