// A daemon killed with SIGKILL while 500 accepted messages are queued: after a restart all 500
// reach the sink, and none twice except those in flight at the crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { headers, sink } from '../helpers/sink.js';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';

const CONCURRENCY = 8;

test('SIGKILL with 500 queued: all delivered after restart, duplicates only for those in flight', async (t) => {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  // Slow at first, so most of the 500 are still queued when the daemon dies.
  s.dataDelayMs = 300;
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
  const key = await cliSender(base, dns);
  const flags = [...base, '--direct-port', String(s.port), '--delivery-concurrency', String(CONCURRENCY), '--smtp-timeout', '5000'];

  const d1 = await serve(flags);
  t.after(() => d1.stop('SIGKILL'));
  const post = (i: number) =>
    fetch(`${d1.urls.api}/api/v2/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'hello@acme.test', to: [`r${i}@rcpt.test`], subject: `n${i}`, body_text: 'x' }),
    }).then((r) => r.status);
  const statuses: number[] = [];
  for (let i = 0; i < 500; i += 25) statuses.push(...(await Promise.all(Array.from({ length: 25 }, (_, k) => post(i + k)))));
  assert.deepEqual([...new Set(statuses)], [202]);
  await d1.stop('SIGKILL');
  const atCrash = s.received.length;
  assert.ok(atCrash < 500, `only ${atCrash} had arrived when the daemon died`);

  s.dataDelayMs = 0;
  const d2 = await serve(flags);
  t.after(() => d2.stop('SIGKILL'));
  const unique = () => new Set(s.received.map((r) => headers(r.raw).get('subject')![0])).size;
  for (let i = 0; i < 600 && unique() < 500; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(unique(), 500, 'every accepted message arrived');
  const duplicates = s.received.length - 500;
  assert.ok(duplicates <= CONCURRENCY, `${duplicates} duplicates, at most the ${CONCURRENCY} in flight`);
  const list = await fetch(`${d2.urls.api}/api/v2/messages?status=sent&limit=1`, { headers: { authorization: `Bearer ${key}` } }).then(
    (r) => r.json() as Promise<{ total: number }>,
  );
  assert.equal(list.total, 500);
  assert.equal(await d2.stop(), 0);
});

test('a crash that tore a 9 MB write (a large relay message half written): what was acknowledged is there, and the next 202 survives a restart', async (t) => {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
  const key = await cliSender(base, dns);
  const flags = [...base, '--no-delivery'];
  const d0 = await serve(flags);
  t.after(() => d0.stop('SIGKILL'));
  const before = await postEmail(d0, key, 'before@rcpt.test', 'before the tear');
  assert.equal(before.status, 202);
  await d0.stop('SIGKILL');
  // What a SIGKILL in the middle of writing a 20 MB message leaves: frames of the write-ahead log
  // without their end. (Killing at the right moment cannot be made to happen every time; this is
  // the state it makes.)
  await appendFile(join(dir, 'svc.db-wal'), Buffer.alloc(9 * 1024 * 1024, 'QUJD'));
  const d1 = await serve([...base, '--direct-port', String(s.port), '--smtp-timeout', '5000']);
  t.after(() => d1.stop('SIGKILL'));
  const r = await postEmail(d1, key, 'after@rcpt.test', 'after the tear');
  assert.equal(r.status, 202);
  const { id } = r.body;
  await d1.stop('SIGKILL');
  const d2 = await serve(flags);
  t.after(() => d2.stop('SIGKILL'));
  for (const [m, subject] of [
    [before.body.id, 'before the tear'],
    [id, 'after the tear'],
  ]) {
    const got = await fetch(`${d2.urls.api}/api/v2/messages/${m}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(got.status, 200);
    assert.equal(((await got.json()) as { subject: string }).subject, subject);
  }
  assert.equal(await d2.stop(), 0);
});
