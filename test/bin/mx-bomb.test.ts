// The message/rfc822 part bomb through the real binary: an MX message whose top-level type is
// message/rfc822 around 900,000 tiny parts (13.6 MB; its reads once stalled every listener for 37 s
// and took the daemon to 5.2 GB). Now it is kept as received and marked, and reading it never parses
// it: the daemon reads it in a 96 MB heap, with the raw bytes too, while /healthz answers. No figure
// is asserted (timings belong to the bench); the deadlines only keep the test from hanging.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, cliSender } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { transact } from '../helpers/mx.js';

const parts = 900_000;
const bomb = () => {
  const inner = Array.from({ length: parts }, () => '--b\r\n\r\nx\r\n').join('');
  return `From: a@elsewhere.test\r\nSubject: wrapped\r\nContent-Type: Message/RFC822\r\n\r\nFrom: b@elsewhere.test\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${inner}--b--\r\n`;
};

test(
  'an MX message/rfc822 around 900,000 parts: kept as received, read (and read raw) in a 96 MB heap while /healthz answers',
  { timeout: 180_000 },
  async (t) => {
    const dns = await fixtureDns(t);
    const dir = await tmpDir(t);
    const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const d = await serve(base, { env: { NODE_OPTIONS: '--max-old-space-size=96' }, listeners: ['api', 'mx'] });
    t.after(() => d.stop('SIGKILL'));
    const message = bomb();
    assert.ok(message.length > 8 * 1024 * 1024);
    assert.match((await transact(d.urls.mx!, 'a@elsewhere.test', ['hello@acme.test'], message)).end, /^250 /);

    const get = (path: string) =>
      fetch(`${d.urls.api}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(60_000) });
    const listed = (await (await get('/api/v2/inbox/items')).json()) as {
      data: Array<{ id: string; subject: string; note: string | null }>;
    };
    assert.equal(listed.data.length, 1);
    assert.match(listed.data[0]!.note ?? '', /more than 500 MIME parts; kept as received/);
    const id = listed.data[0]!.id;
    // The reads and health checks all in flight together.
    const [read, raw, ...health] = await Promise.all([
      get(`/api/v2/inbox/items/${id}`),
      get(`/api/v2/inbox/items/${id}?raw=true`),
      ...Array.from({ length: 5 }, () => get('/healthz')),
    ]);
    assert.deepEqual(
      health.map((h) => h.status),
      [200, 200, 200, 200, 200],
    );
    assert.equal(read.status, 200);
    const body = (await read.json()) as { text: string | null; html: string | null; note: string };
    assert.deepEqual({ text: body.text, html: body.html }, { text: null, html: null });
    assert.match(body.note, /kept as received/);
    assert.equal(raw.status, 200);
    const rawBody = (await raw.json()) as { raw: string };
    assert.ok(Buffer.from(rawBody.raw, 'base64').includes(Buffer.from(`--b\r\n\r\nx\r\n--b--\r\n`)), 'the whole message is kept');
    assert.equal((await get('/healthz')).status, 200);
    assert.equal(await d.stop(), 0);
  },
);
