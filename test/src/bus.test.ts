import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bus } from '../../src/bus.js';

test('bus: subscribers of a topic are told of each publish, until they unsubscribe', () => {
  const bus = new Bus();
  const seen: string[] = [];
  const off = bus.subscribe('queued', () => seen.push('a'));
  bus.subscribe('outboxed', () => seen.push('b'));
  bus.publish('queued');
  bus.publish('outboxed');
  off();
  bus.publish('queued');
  assert.deepEqual(seen, ['a', 'b']);
});
