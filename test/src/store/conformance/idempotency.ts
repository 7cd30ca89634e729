// Store conformance: idempotency. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, fresh, ws, key, batch } from './fixtures.js';

export function idempotencyConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: idempotency claims: one of concurrent claims wins, a completed key replays, old ones are taken over`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const now = '2026-01-01T10:00:00.000Z';
    const day = 86_400_000;
    // Five requests with the same key at once, and five with keys of their own.
    const same = await Promise.all(Array.from({ length: 5 }, (_, i) => store.idempotency.claim(a.id, 'k', `t${i}`, now, day, 60_000)));
    assert.deepEqual(same.map((c) => c.state).sort(), ['claimed', 'running', 'running', 'running', 'running']);
    const own = await Promise.all(Array.from({ length: 5 }, (_, i) => store.idempotency.claim(a.id, `own${i}`, `o${i}`, now, day, 60_000)));
    assert.deepEqual(
      own.map((c) => c.state),
      ['claimed', 'claimed', 'claimed', 'claimed', 'claimed'],
    );
    // Completed with a send: a replay gets the stored response.
    const winner = `t${same.findIndex((c) => c.state === 'claimed')}`;
    await store.messages.accept({
      ...batch(a.id, ['x@rcpt.test'], now),
      idempotency: { key: 'k', token: winner, response: { status: 202, body: { id: 'm1' } } },
    });
    assert.deepEqual(await store.idempotency.claim(a.id, 'k', 'late', '2026-01-01T11:00:00.000Z', day, 60_000), {
      state: 'completed',
      response: { status: 202, body: { id: 'm1' } },
    });
    // A running claim whose request stopped beating is taken over (its time is measured with the
    // store's clock: a running time of nothing has passed); a completed one older than a day too.
    assert.deepEqual(await store.idempotency.claim(a.id, 'own0', 'again', now, day, 60_000), { state: 'running' });
    await store.idempotency.renew(a.id, 'own0', 'o0', now);
    assert.deepEqual(await store.idempotency.claim(a.id, 'own0', 'again', '2026-01-01T10:00:00.001Z', day, 0), { state: 'claimed' });
    assert.deepEqual(await store.idempotency.claim(a.id, 'k', 'next-day', '2026-01-02T10:00:01.000Z', day, 60_000), { state: 'claimed' });
    // Released: free again at once.
    await store.idempotency.release(a.id, 'own1', 'o1');
    assert.deepEqual(await store.idempotency.claim(a.id, 'own1', 'o1b', now, day, 60_000), { state: 'claimed' });
    // The request's fingerprint is kept with the claim, running and completed.
    assert.deepEqual(await store.idempotency.claim(a.id, 'fp', 'f1', now, day, 60_000, 'hash-a'), { state: 'claimed' });
    assert.deepEqual(await store.idempotency.claim(a.id, 'fp', 'f2', now, day, 60_000, 'hash-b'), {
      state: 'running',
      fingerprint: 'hash-a',
    });
    await store.messages.accept({
      ...batch(a.id, ['y@rcpt.test'], now),
      idempotency: { key: 'fp', token: 'f1', response: { status: 202, body: { id: 'm2' } }, fingerprint: 'hash-a' },
    });
    assert.deepEqual(await store.idempotency.claim(a.id, 'fp', 'f3', now, day, 60_000, 'hash-b'), {
      state: 'completed',
      response: { status: 202, body: { id: 'm2' } },
      fingerprint: 'hash-a',
    });

    // Sends at once (stored together where a store batches them), keyed and not, one key in two
    // workspaces: each completes its own claim, and only it.
    const b = await store.workspaces.create(ws('beta'));
    for (const [w, tok] of [
      [a.id, 'sa'],
      [b.id, 'sb'],
    ] as const)
      assert.deepEqual(await store.idempotency.claim(w, 'shared', tok, now, day, 60_000), { state: 'claimed' });
    assert.deepEqual(await store.idempotency.claim(a.id, 'other', 'oa', now, day, 60_000), { state: 'claimed' });
    await Promise.all([
      store.messages.accept({
        ...batch(a.id, ['s1@rcpt.test'], now),
        idempotency: { key: 'shared', token: 'sa', response: { status: 202, body: { id: 'a1' } } },
      }),
      store.messages.accept({
        ...batch(b.id, ['s2@rcpt.test'], now),
        idempotency: { key: 'shared', token: 'sb', response: { status: 202, body: { id: 'b1' } } },
      }),
      store.messages.accept(batch(a.id, ['s3@rcpt.test'], now)),
    ]);
    assert.deepEqual(await store.idempotency.claim(a.id, 'shared', 'x', now, day, 60_000), {
      state: 'completed',
      response: { status: 202, body: { id: 'a1' } },
    });
    assert.deepEqual(await store.idempotency.claim(b.id, 'shared', 'x', now, day, 60_000), {
      state: 'completed',
      response: { status: 202, body: { id: 'b1' } },
    });
    assert.deepEqual(await store.idempotency.claim(a.id, 'other', 'x', now, day, 60_000), { state: 'running' });
  });

  test(`${backend.name}: idempotency claims older than a cut-off are forgotten, completed or running; newer ones stay`, async (t) => {
    const { store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const day = 86_400_000;
    const t0 = '2026-01-01T10:00:00.000Z';
    const t1 = '2026-01-01T12:00:00.000Z';
    assert.deepEqual(await store.idempotency.claim(a.id, 'old-done', 'o1', t0, day, 60_000), { state: 'claimed' });
    await store.messages.accept({
      ...batch(a.id, ['x@rcpt.test'], t0),
      idempotency: { key: 'old-done', token: 'o1', response: { status: 202, body: { id: 'm1' } } },
    });
    assert.deepEqual(await store.idempotency.claim(a.id, 'old-running', 'o2', t0, day, 60_000), { state: 'claimed' });
    assert.deepEqual(await store.idempotency.claim(a.id, 'new-done', 'n1', t1, day, 60_000), { state: 'claimed' });
    await store.messages.accept({
      ...batch(a.id, ['y@rcpt.test'], t1),
      idempotency: { key: 'new-done', token: 'n1', response: { status: 202, body: { id: 'm2' } } },
    });
    assert.equal(await store.idempotency.purge('2026-01-01T11:00:00.000Z'), 2);
    assert.equal(await store.idempotency.purge('2026-01-01T11:00:00.000Z'), 0);
    // Within the day they would have replayed; forgotten, the key is free. The newer one replays.
    assert.deepEqual(await store.idempotency.claim(a.id, 'old-done', 'o3', t1, day, 60_000), { state: 'claimed' });
    assert.deepEqual(await store.idempotency.claim(a.id, 'new-done', 'n2', t1, day, 60_000), {
      state: 'completed',
      response: { status: 202, body: { id: 'm2' } },
    });
  });
}
