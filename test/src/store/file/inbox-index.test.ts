// The file store's compact inbox index against a plain model of the same items: lists by folder,
// kind and thread, threads by last activity, lookups by id and Message-ID, deletions (one by one and
// by day), the order built in one pass after a bulk load, and a rebuild past CHUNK deletions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InboxIndex, NONE, type IndexedItem } from '../../../../src/store/file/inbox-index.js';
import { HashSlots } from '../../../../src/store/file/columns.js';
import type { InboxKind } from '../../../../src/model/inbox.js';

interface Model extends IndexedItem {
  n: number;
  day: string;
  gone: boolean;
}

/** A deterministic pseudo-random sequence (no flaky failures). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const KINDS: InboxKind[] = ['mail', 'reply', 'bounce', 'sent'];

function build(count: number, seed: number, bulk: boolean): { index: InboxIndex; items: Model[] } {
  const r = rng(seed);
  const index = new InboxIndex();
  if (bulk) index.beginBulk();
  const items: Model[] = [];
  for (let i = 0; i < count; i++) {
    const ws = `ws${Math.floor(r() * 3)}`;
    const mine = items.filter((x) => x.workspace_id === ws);
    // A third join an earlier thread of their workspace; creation times wander (two journals read in turn).
    const thread = mine.length && r() < 0.35 ? mine[Math.floor(r() * mine.length)]!.thread_id : `t${i}`;
    const item: IndexedItem = {
      id: `id${i}`,
      workspace_id: ws,
      kind: KINDS[Math.floor(r() * KINDS.length)]!,
      thread_id: thread,
      message_id: r() < 0.8 ? `m${i % 50}@x` : null,
      message_ref: r() < 0.2 ? `ref${i % 7}` : null,
      created_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(r() * 100) * 1000).toISOString(),
    };
    const day = `2026-01-0${1 + (i % 3)}`;
    const n = index.add(item, { partition: day, segment: i % 2, offset: i * 10 });
    items.push({ ...item, n, day, gone: false });
  }
  if (bulk) index.finishBulk();
  return { index, items };
}

/** What the index should answer, from the model. */
function expected(items: Model[], ws: string) {
  const live = items.filter((i) => i.workspace_id === ws && !i.gone);
  const byThread = new Map<string, Model[]>();
  for (const i of live) byThread.set(i.thread_id, [...(byThread.get(i.thread_id) ?? []), i]);
  const threads = [...byThread.values()].map((list) => {
    const newest = list.reduce((a, b) => (b.created_at >= a.created_at ? b : a));
    const oldest = list.reduce((a, b) => (b.created_at < a.created_at ? b : a));
    return { count: list.length, newest, oldest };
  });
  return { live, threads };
}

function check(index: InboxIndex, items: Model[], label: string): void {
  const id = (n: number) => index.ref(n).idHash;
  const byN = new Map(items.map((i) => [i.n, i]));
  const of = (n: number) => byN.get(n)!;
  for (const ws of ['ws0', 'ws1', 'ws2']) {
    const { live, threads } = expected(items, ws);
    for (const sent of [false, true]) {
      const folder = live.filter((i) => (i.kind === 'sent') === sent).reverse();
      const page = index.list(ws, { sent, offset: 3, limit: 7 });
      assert.equal(page.total, folder.length, `${label}: ${ws} total`);
      assert.deepEqual(
        page.items.map((n) => of(n).id),
        folder.slice(3, 10).map((i) => i.id),
        `${label}: ${ws} page`,
      );
      const kind = index.list(ws, { sent, kind: 'reply', offset: 0, limit: 1000 });
      assert.deepEqual(
        kind.items.map((n) => of(n).id),
        folder.filter((i) => i.kind === 'reply').map((i) => i.id),
        `${label}: by kind`,
      );
    }
    // Threads: by last activity, newest first; equal times in any order, so compared as sets of (time, id).
    const got = index.threads(ws, { offset: 0, limit: 100_000 });
    assert.equal(got.total, threads.length, `${label}: ${ws} threads`);
    const lastAt = got.threads.map((t) => of(t.newest).created_at);
    assert.deepEqual(lastAt, [...lastAt].sort().reverse(), `${label}: threads in order`);
    const shape = (t: { count: number; newest: Model; oldest: Model }) =>
      `${t.newest.thread_id}:${t.count}:${t.newest.created_at}:${t.oldest.created_at}`;
    assert.deepEqual(
      got.threads.map((t) => shape({ count: t.count, newest: of(t.newest), oldest: of(t.oldest) })).sort(),
      threads.map(shape).sort(),
      `${label}: thread aggregates`,
    );
    // A thread's items, newest stored first.
    const some = threads[0];
    if (some) {
      const anchor = index.thread(ws, some.newest.thread_id);
      assert.notEqual(anchor, NONE);
      const inThread = index.list(ws, { sent: false, thread: anchor, offset: 0, limit: 1000 });
      assert.deepEqual(
        inThread.items.map((n) => of(n).id),
        live
          .filter((i) => i.thread_id === some.newest.thread_id && i.kind !== 'sent')
          .reverse()
          .map((i) => i.id),
        `${label}: thread items`,
      );
    }
    for (const i of live.slice(0, 20)) {
      assert.ok(
        index.byId(ws, i.id).some((n) => of(n).id === i.id && id(n) === id(i.n)),
        `${label}: by id`,
      );
      if (i.message_id)
        assert.ok(
          index.byMessageId(ws, i.message_id).some((n) => of(n).id === i.id),
          `${label}: by Message-ID`,
        );
    }
  }
  for (const i of items.filter((x) => x.gone).slice(0, 20))
    assert.deepEqual(index.byId(i.workspace_id, i.id), [], `${label}: deleted items are not found`);
}

test('inbox index: lists, threads and lookups agree with a plain model, built one by one or in bulk', () => {
  const one = build(3000, 7, false);
  const bulk = build(3000, 7, true);
  check(one.index, one.items, 'one by one');
  check(bulk.index, bulk.items, 'bulk');
  const where = one.index.where(one.items[1234]!.n);
  assert.deepEqual(where, { partition: '2026-01-02', segment: 0, offset: 12340 });
  assert.deepEqual(
    one.index.about('ref3').sort(),
    one.items
      .filter((i) => i.message_ref === 'ref3')
      .map((i) => i.n)
      .sort(),
  );
});

test('inbox index: deletions one by one and by day keep it whole', () => {
  const { index, items } = build(3000, 11, false);
  const r = rng(3);
  for (const i of items) {
    if (r() >= 0.3) continue;
    index.remove([i.n]);
    i.gone = true;
  }
  check(index, items, 'after deletions');
  const n = index.removeDay('2026-01-02', false);
  let dropped = 0;
  for (const i of items) {
    if (i.day !== '2026-01-02' || i.kind === 'sent' || i.gone) continue;
    i.gone = true;
    dropped++;
  }
  assert.equal(n, dropped);
  check(index, items, 'after a day dropped');
  // A thread emptied and then joined again.
  const t = items.find((i) => !i.gone)!;
  for (const i of items)
    if (i.workspace_id === t.workspace_id && i.thread_id === t.thread_id && !i.gone) {
      index.remove([i.n]);
      i.gone = true;
    }
  const again: IndexedItem = { ...t, id: 'again', kind: 'mail', created_at: '2026-02-01T00:00:00.000Z' };
  items.push({ ...again, n: index.add(again, { partition: '2026-02-01', segment: 0, offset: 0 }), day: '2026-02-01', gone: false });
  check(index, items, 'a thread joined again');
  assert.equal(index.threads(t.workspace_id, { offset: 0, limit: 1 }).threads[0]!.count, 1);
});

test('inbox index: past a chunk of deletions it is rebuilt from its columns, the same', () => {
  const { index, items } = build(2000, 5, false);
  // Enough items deleted to pass the rebuild threshold (more than a chunk, more than half).
  const extra: Model[] = [];
  for (let i = 0; i < 70_000; i++) {
    const item: IndexedItem = {
      id: `x${i}`,
      workspace_id: 'ws1',
      kind: 'mail',
      thread_id: `xt${i}`,
      message_id: null,
      message_ref: null,
      created_at: '2025-12-01T00:00:00.000Z',
    };
    extra.push({ ...item, n: index.add(item, { partition: '2025-12-01', segment: 0, offset: i }), day: '2025-12-01', gone: false });
  }
  const before = index.size;
  index.remove(extra.map((i) => i.n));
  assert.ok(index.size < before, 'rebuilt: deleted items no longer take numbers');
  // Numbers changed: the model learns the new ones through lookups by id.
  for (const i of items) {
    const found = index.byId(i.workspace_id, i.id).filter((n) => index.where(n).offset === items.indexOf(i) * 10);
    assert.equal(found.length, 1, i.id);
    i.n = found[0]!;
  }
  check(index, items, 'after a rebuild');
});

test('inbox index: an image of its received items (a snapshot) loads back into an index that answers the same, and keeps working', () => {
  const { index, items } = build(3000, 5, false);
  const r = rng(9);
  for (const i of items) if (r() < 0.2) index.remove([i.n]);
  const built = InboxIndex.of(index.exportReceived());
  const loaded = new InboxIndex();
  loaded.load(built.image());
  const answers = (x: InboxIndex) =>
    ['ws0', 'ws1', 'ws2'].map((ws) => ({
      inbox: x.list(ws, { sent: false, offset: 0, limit: 5000 }),
      bounces: x.list(ws, { sent: false, kind: 'bounce', offset: 0, limit: 5000 }),
      threads: x.threads(ws, { offset: 0, limit: 5000 }),
      byId: items.filter((i) => i.workspace_id === ws).map((i) => x.byId(ws, i.id)),
      byMid: ['m1@x', 'm7@x'].map((m) => x.byMessageId(ws, m)),
      where: x.list(ws, { sent: false, offset: 0, limit: 5000 }).items.map((n) => x.where(n)),
      about: x.about('ref3'),
    }));
  const want = answers(built);
  assert.ok(want[0]!.inbox.total > 100);
  assert.deepEqual(answers(loaded), want);
  // Items added after (Sent copies at start, then new mail) grow its columns and tables as usual.
  for (let i = 0; i < 2000; i++) {
    const item: IndexedItem = {
      id: `new${i}`,
      workspace_id: `ws${i % 3}`,
      kind: i % 2 ? 'sent' : 'mail',
      thread_id: i % 5 ? `t${i * 7}` : `n${i}`,
      message_id: `new${i}@x`,
      message_ref: null,
      created_at: '2026-03-01T00:00:00.000Z',
    };
    assert.equal(
      loaded.add(item, { partition: '2026-03-01', segment: 0, offset: i }),
      built.add(item, { partition: '2026-03-01', segment: 0, offset: i }),
    );
  }
  assert.deepEqual(answers(loaded), answers(built));
  assert.deepEqual(loaded.byId('ws1', 'new1999'), built.byId('ws1', 'new1999'));
  assert.throws(() => loaded.load(built.image()), /holds items/);
});

test('hash slots: entries sharing a hash are all found, in the order inserted, across growth', () => {
  const hashes: number[] = [];
  const slots = new HashSlots((e) => hashes[e]!);
  for (let e = 0; e < 5000; e++) {
    hashes.push(e % 3 === 0 ? 42 : (e * 2654435761) >>> 0);
    slots.insert(e, hashes[e]!);
  }
  const found: number[] = [];
  slots.probe(42, (e) => void found.push(e));
  assert.deepEqual(
    found,
    hashes.flatMap((h, e) => (h === 42 ? [e] : [])),
  );
  assert.ok(slots.bytes < 5000 * 4 * 2, `${slots.bytes} bytes for 5,000 keys`);
});
