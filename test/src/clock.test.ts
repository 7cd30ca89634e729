import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemRandom } from '../../src/clock.js';

test('sortable ids are UUIDs of version 7: the time first, so later rows sort after earlier ones; typed ids stay random', async () => {
  const first = systemRandom.sortable();
  assert.match(first, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const ms = parseInt(first.replace(/-/g, '').slice(0, 12), 16);
  assert.ok(Math.abs(ms - Date.now()) < 60_000, 'the first 48 bits are the time in milliseconds');
  // A later millisecond sorts after (the rest is random: within one millisecond the order is not kept).
  const start = Date.now();
  while (Date.now() === start) await new Promise((r) => setImmediate(r));
  const later = systemRandom.sortable();
  assert.ok(later > first, `${later} sorts after ${first}`);
  const many = new Set(Array.from({ length: 10_000 }, () => systemRandom.sortable()));
  assert.equal(many.size, 10_000, 'no two alike');
  // The ids people type by a prefix: random from the first character (version 4).
  assert.match(systemRandom.uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
