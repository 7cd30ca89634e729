// Store conformance: tls. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, fresh, key } from './fixtures.js';

export function tlsConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: the TLS identity is saved once and kept`, async (t) => {
    const { b, store } = await fresh(backend, t);
    assert.equal(await store.tls.get(), null);
    const first = await store.tls.saveIfAbsent({ cert: 'CERT-1', key: 'KEY-1', created_at: '2026-01-01T00:00:00.000Z' });
    const second = await store.tls.saveIfAbsent({ cert: 'CERT-2', key: 'KEY-2', created_at: '2026-01-02T00:00:00.000Z' });
    assert.deepEqual(second, first);
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.equal((await again.tls.get())?.cert, 'CERT-1');
  });

  test(`${backend.name}: a shared secret is kept once: the first value saved is the one every later call gets`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const [x, y] = await Promise.all([store.secrets.keep('links', 'first'), store.secrets.keep('links', 'second')]);
    assert.equal(x, y);
    assert.equal(await store.secrets.keep('links', 'third'), x);
    assert.equal(await store.secrets.keep('other', 'o'), 'o');
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.equal(await again.secrets.keep('links', 'fourth'), x);
  });
}
