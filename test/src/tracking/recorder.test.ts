// The tracking recorder when the store takes nothing (an outage under a pixel flood): at most
// MAX_HELD hits are kept, the oldest dropped first in O(1), and the log gets one line a minute, not
// one per hit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trackingRecorder } from '../../../src/tracking/recorder.js';
import { systemClock, systemRandom } from '../../../src/clock.js';
import { lineLog } from '../../../src/log.js';
import type { DepsOf } from '../../../src/deps.js';

test('a store that takes nothing: past 100,000 held hits the oldest are dropped, and the log has a few lines, not one per hit', async () => {
  const logs: string[] = [];
  let calls = 0;
  const store = {
    tracking: {
      byTokens: async () => [],
      record: async () => {
        calls++;
        throw new Error('store unavailable');
      },
    },
  };
  const deps = { store, clock: systemClock, random: systemRandom, log: lineLog((l) => logs.push(l)) } as unknown as DepsOf<'tracking'>;
  const r = trackingRecorder(deps, 1);
  const t0 = performance.now();
  for (let i = 0; i < 150_000; i++)
    r.hit({ kind: 'open', token: `t${i}`, url: null, ip: '192.0.2.1', user_agent: 'x', at: new Date(0).toISOString() });
  const ms = performance.now() - t0;
  // Not an assertion on time (machines differ): printed, so a regression back to a copy per hit shows.
  console.log(`# 150,000 hits held in ${ms.toFixed(0)} ms`);
  await new Promise((res) => setTimeout(res, 100));
  assert.ok(calls >= 1, 'the store was tried');
  const dropped = logs.filter((l) => /dropped/.test(l));
  assert.equal(dropped.length, 1, logs.join('\n'));
  assert.match(dropped[0]!, /1 opens and clicks dropped, the oldest first/);
  assert.ok(logs.length <= 3, logs.join('\n'));
});
