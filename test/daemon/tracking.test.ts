// Open and click tracking over real HTTP against a running daemon: the pixel's bytes and headers
// for every token, HEAD, the prefetch window, labels from the request, per-recipient counting,
// webhook events only for counted ones, tracked links and every open-redirect attempt, workspace
// isolation; on both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { full, handOffByHand } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { trackedLink } from '../../src/mail/tracked-link.js';
import { PIXEL } from '../../daemon/http/pixel.js';

const pixelOf = async (raw: Buffer) => /(https?:\/\/[^"]+\/t\/o\/([A-Za-z0-9_-]+)\.gif)/.exec((await PostalMime.parse(raw)).html ?? '')!;

async function fetchPixel(url: string, ua = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7)', method = 'GET') {
  const r = await fetch(url, { method, headers: { 'user-agent': ua } });
  return { status: r.status, headers: r.headers, body: Buffer.from(await r.arrayBuffer()) };
}

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: the pixel, the prefetch window, labels, per-recipient counts, webhooks only for counted opens, workspace isolation`, async (t) => {
    const { s, clock, deliver } = await handOffByHand(
      t,
      { SVC_PREFETCH_WINDOW: '1' },
      backend === 'postgres' ? pgLocation(await migratedSchemaUrl(t)) : undefined,
    );
    const r = await s.post({
      from: 'hello@acme.test',
      to: ['jane@rcpt.test'],
      cc: ['bob@rcpt.test'],
      subject: 'Tracked',
      body_html: '<p>Hi</p>',
    });
    assert.equal(r.status, 202);
    await deliver();
    const byRcpt = Object.fromEntries(await Promise.all(s.sink.received.map(async (x) => [x.to[0]!, await pixelOf(x.raw)] as const)));
    const [janeUrl, janeToken] = [byRcpt['jane@rcpt.test']![1], byRcpt['jane@rcpt.test']![2]];
    assert.ok(janeUrl!.startsWith(`${s.daemon.service.deps.config.baseUrl}/t/o/`));
    assert.notEqual(janeToken, byRcpt['bob@rcpt.test']![2]);

    // The same bytes and headers for a known token, an unknown one and garbage; never cached.
    const known = await fetchPixel(janeUrl!);
    for (const other of [`${s.api}/t/o/${'x'.repeat(24)}.gif`, `${s.api}/t/o/not-a-token`, `${s.api}/t/o/%00%ff.gif`]) {
      const o = await fetchPixel(other);
      assert.deepEqual(
        [o.status, o.body, o.headers.get('content-type'), o.headers.get('cache-control')],
        [known.status, known.body, known.headers.get('content-type'), known.headers.get('cache-control')],
      );
    }
    assert.deepEqual([known.status, known.headers.get('content-type')], [200, 'image/gif']);
    assert.deepEqual(known.body, PIXEL);
    assert.match(known.headers.get('cache-control')!, /no-store/);
    // That first fetch came at sending time: a prefetch. HEAD records nothing.
    const head = await fetchPixel(janeUrl!, 'x', 'HEAD');
    assert.deepEqual([head.status, head.body.length], [200, 0]);

    // Later, Gmail's proxy opens for Jane (counted), a link scanner's agent too (not counted).
    clock.advance(30_000);
    await fetchPixel(janeUrl!, 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)');
    await fetchPixel(janeUrl!, 'python-requests/2.31');
    await s.daemon.service.tracking.drain();

    const m = await Promise.all([full(s, r.body.id), s.get('/api/v2/messages?recipient=bob')]);
    const jane = m[0];
    const bob = await full(s, m[1].body.data[0].id);
    assert.deepEqual([jane.open_count, jane.first_open_after_seconds, jane.engagement_score], [1, 0, 1]);
    assert.ok(jane.opened_at);
    assert.deepEqual([bob.open_count, bob.opened_at], [0, null]);
    const ev = await s.get(`/api/v2/messages/${jane.id}/events`);
    assert.equal(ev.status, 200);
    assert.deepEqual(
      ev.body.data.map((e: any) => [e.kind, e.prefetch, e.source]),
      [
        ['open', true, 'prefetch'],
        ['open', false, 'proxy'],
        ['open', true, 'scanner'],
      ],
    );
    assert.equal(ev.body.total, 3);
    for (const e of ev.body.data) assert.deepEqual(Object.keys(e).sort(), ['created_at', 'ip', 'kind', 'prefetch', 'source', 'user_agent']);
    assert.deepEqual((await s.get(`/api/v2/messages/${bob.id}/events`)).body, { data: [], total: 0 });

    // Webhooks: one message.opened, for the counted open, carrying the recipient.
    const opened = (await s.daemon.service.store.outbox.pending(100)).filter((e) => e.event === 'message.opened');
    assert.deepEqual(
      opened.map((e) => [e.message_id, e.payload.to]),
      [[jane.id, 'jane@rcpt.test']],
    );

    // Another workspace cannot read them.
    const otherWs = await s.daemon.service.workspaces.create('other', 'scale');
    const otherKey = (await s.daemon.service.keys.create(otherWs, { scopes: 'read' })).key;
    assert.equal((await s.get(`/api/v2/messages/${jane.id}/events`, otherKey)).status, 404);
  });
}

test('tracked links: a signed link redirects and counts a click (and an open); anything altered or foreign is 404, never a redirect', async (t) => {
  const { s, clock, deliver } = await handOffByHand(t, { SVC_PREFETCH_WINDOW: '1' });
  const r = await s.post({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Links', body_html: '<p>Hi</p>' });
  await deliver();
  const [, , token] = await pixelOf(s.sink.received[0]!.raw);
  const key = await s.daemon.service.tracking.linkKey();
  const base = s.daemon.service.deps.config.baseUrl;
  const good = trackedLink(base, key, token!, 'https://example.com/page?a=1&b=2');
  clock.advance(60_000);
  const go = (url: string) =>
    fetch(url, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0' } });

  const ok = await go(good);
  assert.deepEqual([ok.status, ok.headers.get('location')], [302, 'https://example.com/page?a=1&b=2']);
  const sig = good.split('/t/c/')[1]!.split('/')[1]!.split('?')[0]!;
  for (const bad of [
    good.replace('example.com', 'evil.example'),
    `${base}/t/c/${token}/${sig}?u=${encodeURIComponent('//evil.example/x')}`,
    `${base}/t/c/${token}/${sig}?u=${encodeURIComponent('javascript:alert(1)')}`,
    trackedLink(base, key, token!, 'javascript:alert(1)'),
    trackedLink(base, key, token!, '//evil.example/x'),
    trackedLink(base, 'another-key', token!, 'https://evil.example/'),
    good.replace(`/${sig}?`, `/${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}?`),
    good.replace(token!, 'A'.repeat(token!.length)),
    `${base}/t/c/${token}/${sig}`,
    // Signed by the service, but with a CR/LF in it: no Location header can carry it (was a 500).
    trackedLink(base, key, token!, 'https://example.com/a\r\nSet-Cookie: x=1'),
  ]) {
    const res = await go(bad);
    assert.equal(res.status, 404, bad);
    assert.equal(res.headers.get('location'), null, bad);
  }
  await s.daemon.service.tracking.drain();
  const m = await full(s, r.body.id);
  // The click counts, and as the first open too (the pixel was never loaded).
  assert.deepEqual([m.click_count, m.open_count, m.engagement_score], [1, 1, 6]);
  const ev = (await s.get(`/api/v2/messages/${m.id}/events`)).body.data;
  assert.deepEqual(
    ev.map((e: any) => [e.kind, e.source, e.url]),
    [['click', 'human', 'https://example.com/page?a=1&b=2']],
  );
  const outbox = (await s.daemon.service.store.outbox.pending(100)).filter((e) => e.event === 'message.clicked');
  assert.equal(outbox.length, 1);
  assert.ok(!('url' in outbox[0]!.payload) && !('to' in outbox[0]!.payload), 'message.clicked carries no link');
});
