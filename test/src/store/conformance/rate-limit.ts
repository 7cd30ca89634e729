// Store conformance: the rate window (model/rate-window.ts) as each backend keeps its buckets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, fresh } from './fixtures.js';

export function rateLimitConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: rule, the rate window: grants up to the limit, says when a slot frees, slides, per key`, async (t) => {
    const { store } = await fresh(backend, t);
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, s)).toISOString();
    const hit = (key: string, s: number, want = 1) => store.rateLimit.hit(key, at(s), 10_000, 5, want);
    assert.deepEqual(await hit('k1', 0, 3), { granted: 3, retryAfterMs: 0 });
    assert.deepEqual(await hit('k1', 4, 3), { granted: 2, retryAfterMs: 0 }, 'as many as fit');
    assert.deepEqual(await hit('k1', 5), { granted: 0, retryAfterMs: 5_000 }, 'the first second leaves the window at 10 s');
    assert.deepEqual(await hit('k2', 5), { granted: 1, retryAfterMs: 0 }, 'another key has its own window');
    assert.deepEqual(await hit('k1', 10, 5), { granted: 3, retryAfterMs: 0 }, 'the three of second 0 have left');
    assert.deepEqual(await hit('k1', 10), { granted: 0, retryAfterMs: 4_000 });
    assert.deepEqual(await hit('k1', 30, 9), { granted: 5, retryAfterMs: 0 }, 'a quiet window is empty again');
  });

  test(`${backend.name}: rule, the rate window: concurrent hits on one key are each counted once`, async (t) => {
    const { store } = await fresh(backend, t);
    const now = '2026-01-01T10:00:00.000Z';
    const r = await Promise.all(Array.from({ length: 20 }, () => store.rateLimit.hit('k', now, 60_000, 7, 1)));
    assert.equal(
      r.reduce((n, x) => n + x.granted, 0),
      7,
    );
  });
}
