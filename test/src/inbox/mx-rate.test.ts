// The MX's rates (src/inbox/mx-rate.ts) on a clock of the test's own: a minute's worth is refused
// whether or not a minute's turn falls between the messages, and the window slides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mxRate } from '../../../src/inbox/mx-rate.js';

function clocked(limits: { perSender: number; perWorkspace: number }, start: number) {
  const clock = { now: start };
  return { clock, rate: mxRate(limits, () => clock.now) };
}

test('MX rates: a minute’s worth sent just before a minute’s turn still counts whole just after it', () => {
  const minute = 60_000 * 29_000_000;
  const { clock, rate } = clocked({ perSender: 3, perWorkspace: 5 }, minute - 300);
  for (let i = 0; i < 3; i++) {
    assert.equal(rate.senderFull('flood@elsewhere.test', '192.0.2.1'), false);
    rate.take('flood@elsewhere.test', '192.0.2.1', ['ws1']);
    clock.now += 100;
  }
  // 0 ms into the next minute, then 1 s into it: the three are still inside the last minute.
  assert.equal(clock.now, minute);
  assert.equal(rate.senderFull('FLOOD@elsewhere.test', '192.0.2.1'), true);
  clock.now += 1000;
  assert.equal(rate.senderFull('flood@elsewhere.test', '192.0.2.1'), true);
  // Split across the turn: two before, one after.
  const { clock: c2, rate: r2 } = clocked({ perSender: 3, perWorkspace: 0 }, minute - 100);
  r2.take('a@elsewhere.test', null, []);
  r2.take('a@elsewhere.test', null, []);
  c2.now = minute + 50;
  r2.take('a@elsewhere.test', null, []);
  assert.equal(r2.senderFull('a@elsewhere.test', null), true);
  // The workspace count likewise.
  const { clock: c3, rate: r3 } = clocked({ perSender: 0, perWorkspace: 2 }, minute - 10);
  r3.take('x@elsewhere.test', null, ['ws1']);
  r3.take('y@elsewhere.test', null, ['ws1']);
  c3.now = minute + 10;
  assert.equal(r3.workspaceFull('ws1'), true);
  assert.equal(r3.workspaceFull('ws2'), false);
});

test('MX rates: the window slides, so a sender is taken again as its messages age out of the last minute', () => {
  const minute = 60_000 * 29_000_000;
  const { clock, rate } = clocked({ perSender: 4, perWorkspace: 0 }, minute + 59_000);
  for (let i = 0; i < 4; i++) rate.take('s@elsewhere.test', null, []);
  assert.equal(rate.senderFull('s@elsewhere.test', null), true);
  // Half-way through the next minute half of them are estimated gone: two more are taken, not three.
  clock.now = minute + 60_000 + 30_000;
  assert.equal(rate.senderFull('s@elsewhere.test', null), false);
  rate.take('s@elsewhere.test', null, []);
  assert.equal(rate.senderFull('s@elsewhere.test', null), false);
  rate.take('s@elsewhere.test', null, []);
  assert.equal(rate.senderFull('s@elsewhere.test', null), true);
  // Two minutes on, nothing is left of them.
  clock.now = minute + 3 * 60_000;
  assert.equal(rate.senderFull('s@elsewhere.test', null), false);
  // The null sender is counted per client IP.
  const { rate: r2 } = clocked({ perSender: 1, perWorkspace: 0 }, minute);
  r2.take('', '192.0.2.7', []);
  assert.equal(r2.senderFull('', '192.0.2.7'), true);
  assert.equal(r2.senderFull('', '192.0.2.8'), false);
});

test('a message is counted before it is stored: sessions at once never take more than the limit; one not stored is given back', () => {
  const rate = mxRate({ perSender: 0, perWorkspace: 30 }, () => 1_000_000);
  // 40 sessions reach DATA together, each from its own sender: 30 are let through, 10 refused.
  const let_through = Array.from({ length: 40 }, (_, i) => rate.take(`s${i}@elsewhere.test`, null, ['ws1'])).filter(Boolean).length;
  assert.equal(let_through, 30);
  assert.equal(rate.workspaceFull('ws1'), true);
  // One of them failed to be stored: its place is free again.
  rate.giveBack('s0@elsewhere.test', null, ['ws1']);
  assert.equal(rate.workspaceFull('ws1'), false);
  assert.equal(rate.take('late@elsewhere.test', null, ['ws1']), true);
  assert.equal(rate.take('later@elsewhere.test', null, ['ws1']), false);
});
