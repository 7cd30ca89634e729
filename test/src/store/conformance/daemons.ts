// Store conformance: the running daemons' reports (svc status).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonStatus } from '../../../../src/model/daemon-status.js';
import { type Backend, fresh } from './fixtures.js';

const report = (id: string, started_at: string, updated_at: string): DaemonStatus => ({
  id,
  host: 'h',
  pid: 1,
  version: '0.1.0',
  started_at,
  updated_at,
  listeners: [{ name: 'api', url: 'http://127.0.0.1:8080', connections: null }],
  rates: { minute: { accepted: 1, sent: 1, deferred: 0, bounced: 0 }, hour: { accepted: 5, sent: 4, deferred: 1, bounced: 0 } },
  faults: [{ kind: 'outbound', detail: 'refused', since: started_at, count: 2 }],
  ticks: [{ name: 'retention', cron: '0 7 * * * *' }],
});

export function daemonsConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: daemons: each report replaces the last; the stale and the gone are not listed`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = report('a', '2026-01-01T10:00:00.000Z', '2026-01-01T10:05:00.000Z');
    const b = report('b', '2026-01-01T09:00:00.000Z', '2026-01-01T10:05:01.000Z');
    await store.daemons.beat(a);
    await store.daemons.beat(b);
    const now = '2026-01-01T10:05:30.000Z';
    assert.deepEqual(await store.daemons.list(now), [b, a], 'by start time, whole');
    await store.daemons.beat({ ...a, updated_at: '2026-01-01T10:05:20.000Z', faults: [] });
    assert.deepEqual((await store.daemons.list(now)).find((x) => x.id === 'a')!.faults, []);
    // A minute without a word: taken to be gone.
    assert.deepEqual(
      (await store.daemons.list('2026-01-01T10:06:15.000Z')).map((x) => x.id),
      ['a'],
    );
    await store.daemons.gone('a');
    assert.deepEqual(
      (await store.daemons.list(now)).map((x) => x.id),
      ['b'],
    );
  });
}
