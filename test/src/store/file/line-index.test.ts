import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttemptIndex } from '../../../../src/store/file/line-index.js';
import { ATTEMPTS_KEPT, type DeliveryAttempt } from '../../../../src/model/attempt.js';
import type { LineAt } from '../../../../src/store/file/journal.js';

const attempt = (message_id: string, n: number) => ({ id: `a${n}`, workspace_id: 'w', message_id, attempt: n }) as DeliveryAttempt;

test('attempt index: attempts read back from their lines, a line once per record, the newest kept', async () => {
  const lines = new Map<LineAt, DeliveryAttempt[]>();
  const place = (transcript: DeliveryAttempt[]): LineAt => {
    const at = { partition: 'd', offset: lines.size * 100, length: 100 };
    lines.set(at, transcript);
    return at;
  };
  let reads = 0;
  const readAt = async (at: LineAt) => (reads++, { outcome: { transcript: lines.get(at)! } });
  const ix = new AttemptIndex();
  // One job's line holds two copies' attempts, one of them tried at two MXs.
  const first = place([attempt('m1', 1), attempt('m2', 1), attempt('m2', 2)]);
  ix.add('m1', first);
  ix.add('m2', first);
  ix.add('m2', first);
  assert.deepEqual(
    (await ix.read('m2', readAt)).map((a) => a.attempt),
    [1, 2],
  );
  assert.equal(reads, 1, 'the shared line is read once for the record');
  // An attempt applied without a place is kept as it is.
  ix.add('m1', attempt('m1', 2));
  assert.deepEqual(
    (await ix.read('m1', readAt)).map((a) => a.attempt),
    [1, 2],
  );
  for (let n = 3; n < ATTEMPTS_KEPT + 10; n++) ix.add('m1', place([attempt('m1', n)]));
  const kept = await ix.read('m1', readAt);
  assert.equal(kept.length, ATTEMPTS_KEPT);
  assert.equal(kept.at(-1)!.attempt, ATTEMPTS_KEPT + 9);
  ix.delete('m1');
  assert.deepEqual(await ix.read('m1', readAt), []);
  assert.deepEqual(await ix.read('nobody', readAt), []);
});
