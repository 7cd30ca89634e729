// svc backup and svc restore: a snapshot taken over the admin socket while the daemon
// accepts and sends; restored into a new directory, every message accepted before it is there;
// the restored queue is held (a daemon on the copy sends nothing) until svc queue retry --all,
// so nothing is sent twice; wrong input is refused with nothing written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { svc, json, serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { TEST_DATABASE_URL, freshSchemaUrl } from '../helpers/pg.js';

test('file store: a backup while the daemon sends; restored, every accepted message is there and its queue is held until retry', async (t) => {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  s.refuse('wait@rcpt.test', 451, '4.2.0 try later');
  const dir = await tmpDir(t);
  const base = ['--store', `file:${join(dir, 'live')}`, '--dns-server', dns.server];
  const key = await cliSender(base, dns);
  const d = await serve([...base, '--direct-port', String(s.port)]);
  t.after(() => d.stop('SIGKILL'));

  const waiting = (await postEmail(d, key, 'wait@rcpt.test', 'deferred')).body.id;
  const accepted: string[] = [waiting];
  for (let i = 0; i < 20; i++) accepted.push((await postEmail(d, key, `r${i}@rcpt.test`, `n${i}`)).body.id);
  // More keep coming while the snapshot is taken.
  const during = Promise.all(Array.from({ length: 20 }, (_, i) => postEmail(d, key, `late${i}@rcpt.test`, `late${i}`)));
  const out = join(dir, 'svc.backup.tar');
  const b = json(await svc([...base, 'backup', '--out', out, '--json']));
  await during;
  assert.deepEqual(Object.keys(b).sort(), ['bytes', 'file']);
  assert.equal(b.file, out);
  assert.equal(statSync(out).size, b.bytes);
  assert.equal(statSync(out).mode & 0o777, 0o600, 'it holds keys: private');
  const tarList = spawnSync('tar', ['-tf', out], { encoding: 'utf8' });
  if (tarList.status === 0) {
    assert.equal(tarList.stdout.split('\n')[0], 'svc.json', 'a tar file any tar reads, svc.json first');
    assert.doesNotMatch(tarList.stdout, /svc\.lock|svc\.sock/);
  }
  await until(
    'the deferral',
    async () => json(await svc([...base, 'queue', 'list', '--json'])),
    (r: unknown[]) => r.length === 1 && (r[0] as { state: string }).state === 'deferred',
  );

  // Restored into a new directory: everything accepted before the backup, and the queue held.
  const copy = ['--store', `file:${join(dir, 'copy')}`, '--dns-server', dns.server];
  const r = json(await svc([...copy, 'restore', out, '--json']));
  assert.deepEqual(r.store, `file:${join(dir, 'copy')}`);
  assert.ok(r.held >= 1, JSON.stringify(r));
  const restored = new Map(
    json(await svc([...copy, 'messages', 'list', '--limit', '500', '--json'])).map((m: { id: string; status: string }) => [m.id, m.status]),
  );
  for (const id of accepted) assert.ok(restored.has(id), `message ${id} accepted before the backup is in it`);
  const held = json(await svc([...copy, 'queue', 'list', '--json']));
  assert.ok(held.some((x: { id: string; state: string }) => x.id === waiting && x.state === 'held'));
  assert.ok(held.every((x: { state: string }) => x.state === 'held'));

  // A daemon on the copy beside the original hands nothing off until told.
  const s2 = await sink(t);
  const d2 = await serve([...copy, '--direct-port', String(s2.port)]);
  t.after(() => d2.stop('SIGKILL'));
  // Running (it has reported, so its workers claim), and the restored queue is still held, none sent.
  const seen = await until(
    'the copy daemon reporting',
    async () => json(await svc([...copy, 'status', '--json'])),
    (v) => v.running === true,
  );
  assert.equal(seen.queue.held, held.length, 'held: no hand-off took them');
  assert.equal(s2.received.length, 0, 'held: nothing sent from the copy');
  const retried = json(await svc([...copy, 'queue', 'retry', '--all', '--json']));
  assert.equal(retried.retried, held.length);
  await s2.waitFor(held.length, 20_000);
  assert.ok(s2.received.some((m) => m.to.includes('wait@rcpt.test')));
  assert.equal(await d2.stop(), 0);
  assert.equal(await d.stop(), 0);
});

test('backup and restore refuse wrong input and change nothing', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${join(dir, 'live')}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  const missing = await svc([...store, 'backup']);
  assert.deepEqual([missing.code, missing.stderr.trim()], [2, 'svc: missing --out FILE']);
  const out = join(dir, 'b.tar');
  assert.equal((await svc([...store, 'backup', '--out', out])).code, 0, 'without a daemon the command takes it');
  const again = await svc([...store, 'backup', '--out', out]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /cannot write .*b\.tar: EEXIST/);
  // Into a store that has data: refused.
  const busy = await svc([...store, 'restore', out]);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /is not empty: a backup is restored into a new store/);
  const junk = join(dir, 'junk.tar');
  writeFileSync(junk, 'not a tar file at all'.repeat(100));
  const bad = await svc(['--store', `file:${join(dir, 'new')}`, 'restore', junk]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /is not an svc backup/);
  assert.equal(existsSync(join(dir, 'new')), false, 'nothing was made');
  const none = await svc(['--store', `file:${join(dir, 'new')}`, 'restore', join(dir, 'nope.tar')]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /cannot read the backup .*nope\.tar: ENOENT/);
  // The restored copy opens with the same workspace.
  assert.deepEqual(json(await svc(['--store', `file:${join(dir, 'new2')}`, 'restore', out, '--json'])).held, 0);
  assert.deepEqual(
    json(await svc(['--store', `file:${join(dir, 'new2')}`, 'workspaces', 'list', '--json'])).map((w: { name: string }) => w.name),
    ['acme'],
  );
});

if (TEST_DATABASE_URL) {
  test('postgres: svc backup says to use pg_dump (exit 2)', async (t) => {
    const url = await freshSchemaUrl(t);
    json(await svc(['--store', url, 'workspaces', 'create', 'acme', '--json']));
    const r = await svc(['--store', url, 'backup', '--out', join(await tmpDir(t), 'x.tar')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /pg_dump/);
    const rr = await svc(['--store', url, 'restore', '/nonexistent.tar']);
    assert.equal(rr.code, 2);
    assert.match(rr.stderr, /pg_restore/);
  });
}
