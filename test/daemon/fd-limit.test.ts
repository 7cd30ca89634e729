// The open-file limit shared out among the listeners: as asked when it fits, else in proportion,
// always leaving a quarter (at least 128 descriptors) to the store and delivery, with a warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionCaps, connectionCeiling, listenerCaps } from '../../daemon/fd-limit.js';

test('caps as asked under a high limit; shared out in proportion under a low one, the reserve kept', () => {
  assert.deepEqual(connectionCaps(connectionCeiling(65_536), { api: 1000, relay: 500, mx: 500 }), { api: 1000, relay: 500, mx: 500 });
  const low = connectionCaps(connectionCeiling(1024), { api: 1000, relay: 500, mx: 500, metrics: 16 });
  const total = Object.values(low).reduce((a, b) => a + b, 0);
  assert.equal(total, 1024 - 256, 'all but a quarter of 1,024');
  assert.ok(low.api > low.relay && low.relay === low.mx && low.metrics >= 1, JSON.stringify(low));
  assert.equal(connectionCaps(null, { api: 5 }).api, 5, 'an unknown limit caps nothing');
  const warned: string[] = [];
  const caps = listenerCaps(
    { apiMaxConnections: 1000, relayMaxConnections: 500, mxMaxConnections: 500 },
    { info() {}, warn: (m) => warned.push(m), error() {} },
    1024,
  );
  assert.deepEqual(caps, low);
  assert.equal(warned.length, 3);
  assert.match(warned[0]!, /^api: at most \d+ connections \(not 1000\): the open-file limit is 1024/);
});
