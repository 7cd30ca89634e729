// Through the real binary: inbox items deleted through the API give back their disk space. The
// daemon's retention worker compacts the inbox journal soon after start and then hourly; after a
// restart the bytes of ten deleted 40 KB messages leave the day's file, it says so in its log, and
// the items kept read back byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { serve, cliSender } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { plainMail, transact } from '../helpers/mx.js';

test(
  'file store: ten of twelve 40 KB inbox items deleted; after a restart the retention worker compacts the day and the two kept read back whole',
  { timeout: 120_000 },
  async (t) => {
    const dns = await fixtureDns(t);
    const dir = await tmpDir(t);
    const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const api = (d: { urls: Record<string, string> }, path: string, method = 'GET') =>
      fetch(`${d.urls.api}${path}`, { method, headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });
    const d1 = await serve(base, { listeners: ['api', 'mx'] });
    t.after(() => d1.stop('SIGKILL'));
    for (let n = 0; n < 12; n++) {
      const message = plainMail('jane@elsewhere.test', 'hello@acme.test', `n${n}`) + `${String(n % 10).repeat(76)}\r\n`.repeat(520);
      assert.match((await transact(d1.urls.mx!, 'jane@elsewhere.test', ['hello@acme.test'], message)).end, /^250 /);
    }
    const items = ((await (await api(d1, '/api/v2/inbox/items?limit=20')).json()) as { data: Array<{ id: string; subject: string }> }).data;
    assert.equal(items.length, 12);
    const kept = items.filter((i) => i.subject === 'n0' || i.subject === 'n11');
    const raws = await Promise.all(
      kept.map(async (i) => ((await (await api(d1, `/api/v2/inbox/items/${i.id}?raw=true`)).json()) as { raw: string }).raw),
    );
    for (const i of items.filter((i) => !kept.includes(i)))
      assert.equal((await api(d1, `/api/v2/inbox/items/${i.id}`, 'DELETE')).status, 204);
    assert.equal(await d1.stop(), 0);

    // The journal's day files (one, unless the test ran across midnight UTC).
    const bytes = async () => {
      let n = 0;
      for (const f of await readdir(join(dir, 'inbox'))) if (f.endsWith('.jsonl')) n += (await stat(join(dir, 'inbox', f))).size;
      return n;
    };
    const before = await bytes();
    const d2 = await serve(base, { listeners: ['api', 'mx'] });
    t.after(() => d2.stop('SIGKILL'));
    // The worker's first run comes about 5 s after start; the deadline only keeps the test from hanging.
    for (const end = Date.now() + 60_000; !/retention: compacted the inbox journal/.test(d2.stderr() + d2.stdout()) && Date.now() < end;)
      await new Promise((r) => setTimeout(r, 200));
    assert.match(d2.stderr() + d2.stdout(), /retention: compacted the inbox journal, 0\.\d MB of deleted items freed/);
    const after = await bytes();
    assert.ok(after < before / 3, `${before} → ${after} bytes`);
    const listed = ((await (await api(d2, '/api/v2/inbox/items?limit=20')).json()) as { data: Array<{ id: string }> }).data;
    assert.deepEqual(
      listed.map((i) => i.id),
      kept.map((i) => i.id),
    );
    for (const [k, i] of kept.entries())
      assert.equal(((await (await api(d2, `/api/v2/inbox/items/${i.id}?raw=true`)).json()) as { raw: string }).raw, raws[k]);
    assert.equal(await d2.stop(), 0);
  },
);
