// Reports parsed in a thread of their own (src/inbox/parse-thread.ts): the same result as the
// parse on the event loop; over the time budget the thread is ended and the message is kept as
// received.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { threadParser } from '../../../src/inbox/parse-thread.js';
import { parseWhole, readHead } from '../../../src/inbox/parse.js';
import { dsn } from '../../helpers/mx.js';

const report = Buffer.from(dsn('bob@rcpt.test', 'abc@acme.test', 'failed', '5.1.1', '550 5.1.1 user unknown'));

test('a report parsed in the thread reads as it does on the event loop', async (t) => {
  const p = threadParser();
  t.after(() => p.close());
  const inThread = await p.parse(report, readHead(report));
  const inline = await parseWhole(report, readHead(report));
  assert.equal(inThread.problem, null);
  assert.deepEqual(inThread.email, inline.email);
});

test('over its time budget a parse is given up (its thread ended) and the message is kept as received', async (t) => {
  const p = threadParser({ budgetMs: 1 });
  t.after(() => p.close());
  const big = Buffer.from(
    dsn('bob@rcpt.test', 'abc@acme.test', 'failed', '5.1.1', 'x').replace(
      'Subject: Hello\r\n',
      `Subject: Hello\r\n${`X-Pad: ${'p'.repeat(990)}\r\n`.repeat(1000)}`,
    ),
  );
  const r = await p.parse(big, readHead(big));
  assert.equal(r.email, null);
  assert.match(r.problem!, /^not parsed \(took more than 1 ms\); kept as received$/);
});
