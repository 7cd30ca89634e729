import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { lineLog } from '../../src/log.js';
import { EventLog } from '../../src/event-log.js';

test('events: one structured line per kind a minute; repeats are counted and said with the next line', () => {
  const lines: string[] = [];
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const ev = new EventLog(lineLog((l) => lines.push(l)), clock);
  ev.event('info', 'delivery sent', { message: 'm1', domain: 'rcpt.test', reply: '250 2.0.0 Ok: queued as X' });
  for (let i = 2; i <= 500; i++) ev.event('info', 'delivery sent', { message: `m${i}`, domain: 'rcpt.test', reply: '250 ok' });
  ev.event('warn', 'relay login-refused', { ip: '127.0.0.1', reply: '535 5.7.8 nope\r\ninjected: yes' });
  assert.deepEqual(lines, [
    'svc: delivery sent message=m1 domain=rcpt.test reply="250 2.0.0 Ok: queued as X"\n',
    'svc: warn: relay login-refused ip=127.0.0.1 reply="535 5.7.8 nope injected: yes"\n',
  ]);
  clock.advance(60_000);
  ev.event('info', 'delivery sent', { message: 'm501', domain: 'rcpt.test', reply: '250 ok' });
  assert.equal(lines[2], 'svc: delivery sent message=m501 domain=rcpt.test reply="250 ok" (and 499 more like it in the minute before)\n');
});
