// Back-off per destination: which results are the destination deferring as a whole, and how long
// it is paused (30 s, doubling, at most 15 minutes, over once it takes mail).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKOFF_MAX_MS, DestinationBackoff, destinationDeferral } from '../../../src/send/backoff.js';
import type { RecipientResult } from '../../../src/send/hand-off.js';

const r = (outcome: RecipientResult['outcome'], response: string, stage?: RecipientResult['stage']): RecipientResult => ({
  address: 'a@x.test',
  outcome,
  response,
  ...(stage ? { stage } : {}),
});

test("a destination deferral: a 421 anywhere, or a 4xx or no answer before RCPT; never a recipient's 4xx or any 5xx", () => {
  assert.equal(destinationDeferral([r('temporary', '421 4.7.0 Too many connections', 'connect')]), '421 4.7.0 Too many connections');
  assert.equal(destinationDeferral([r('temporary', '421 4.4.2 closing', 'data')]), '421 4.4.2 closing');
  assert.equal(destinationDeferral([r('temporary', '451 4.7.1 Try later', 'mail')]), '451 4.7.1 Try later');
  assert.equal(destinationDeferral([r('temporary', 'connect ECONNREFUSED 127.0.0.1:25', 'connect')]), 'connect ECONNREFUSED 127.0.0.1:25');
  assert.equal(
    destinationDeferral([r('hop', '421 4.3.2 System not accepting network messages', 'connect')]),
    '421 4.3.2 System not accepting network messages',
  );
  assert.equal(destinationDeferral([r('temporary', '452 4.2.2 Mailbox full', 'rcpt')]), null, 'one mailbox, not the destination');
  assert.equal(destinationDeferral([r('permanent', '550 5.1.1 No such user', 'rcpt')]), null);
  assert.equal(destinationDeferral([r('temporary', '421 4.7.0 busy', 'connect'), r('sent', '250 ok')]), null);
  assert.equal(destinationDeferral([]), null);
});

test('a paused destination: 30 s, then 60, 120 ... at most 15 minutes; mail taken ends it', () => {
  let now = 0;
  const b = new DestinationBackoff(() => now);
  assert.deepEqual(b.paused(), []);
  assert.equal(b.deferred('x.test', '421 busy').until, 30_000);
  assert.deepEqual(b.paused(), ['x.test']);
  now = 30_000;
  assert.deepEqual(b.paused(), [], 'the pause ended');
  assert.equal(b.deferred('x.test', '421 busy').until, 30_000 + 60_000, 'again: twice as long');
  for (let i = 0; i < 10; i++) b.deferred('x.test', '421 busy');
  assert.equal(b.deferred('x.test', '421 busy').until, now + BACKOFF_MAX_MS);
  b.took('x.test');
  assert.deepEqual(b.paused(), []);
  assert.equal(b.deferred('x.test', '421 busy').until, now + 30_000, 'after mail went through, from 30 s again');
});
