// Store conformance: reopen. Every backend runs these (conformance/index.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, fresh, ws, key, address, batch } from './fixtures.js';

export function reopenConformance<B>(backend: Backend<B>): void {
  test(`${backend.name}: what was written is there after a reopen`, async (t) => {
    const { b, store } = await fresh(backend, t);
    const a = await store.workspaces.create(ws('acme'));
    const k = await store.keys.create(key(a.id));
    await store.keys.revoke(a.id, k.id, '2026-01-02T00:00:00.000Z');
    await store.close();
    const again = await backend.open(b);
    t.after(() => again.close());
    assert.deepEqual(await again.workspaces.list(), [a]);
    assert.equal((await again.keys.findByHash(k.hash))?.key.revoked_at, '2026-01-02T00:00:00.000Z');
    await again.health();
    // The send pipeline's records too: a queued job, a message, a suppression.
    const sent = batch(a.id, ['keep@rcpt.test'], '2026-01-05T00:00:00.000Z');
    await again.messages.accept(sent);
    const relayed = batch(a.id, ['relayed@rcpt.test'], '2026-01-05T00:00:00.000Z');
    relayed.content = {
      ...relayed.content,
      source: 'relay',
      html: null,
      text: null,
      raw: Buffer.from('Subject: kept\r\n\r\nas it came\r\n').toString('base64'),
    };
    await again.messages.accept(relayed);
    await again.suppressions.add({
      workspace_id: a.id,
      address: 's@y.test',
      reason: 'manual',
      detail: null,
      created_at: '2026-01-05T00:00:00.000Z',
    });
    await again.close();
    const third = await backend.open(b);
    t.after(() => third.close());
    assert.equal((await third.messages.get(a.id, sent.messages[0]!.id))?.to, 'keep@rcpt.test');
    assert.equal(await third.queue.depth(), 2);
    assert.deepEqual(
      (await third.queue.claim('w', '2026-01-05T00:00:01.000Z', 1000, 5)).map((j) => j.id).sort(),
      [sent.jobs[0]!.id, relayed.jobs[0]!.id].sort(),
    );
    // What delivery needs of a queued send: its content, whole (the file store reads it back from disk).
    assert.deepEqual(await third.messages.content(sent.content.id), sent.content);
    assert.deepEqual(await third.messages.content(relayed.content.id), relayed.content);
    assert.equal((await third.suppressions.list(a.id)).length, 1);
  });
}
