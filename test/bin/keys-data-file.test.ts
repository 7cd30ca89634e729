// `svc keys list`, `create` and `revoke` (and domains list, addresses list, workspaces list) on a
// file store that no daemon owns open its data file (svc.json) alone (src/store/file/doc-store.ts):
// a damaged svc.db is not even opened by them (a whole open refuses it, naming it), and what they
// write is the store's own: a whole open sees it. Beside a daemon they go through its admin socket,
// as every command does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

test('keys commands read and write svc.json alone: a damaged svc.db is left unopened; a whole open sees their keys', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...store, 'workspaces', 'create', 'other', '--json']));
  json(await svc([...store, 'suppressions', 'add', 'a@x.test', '--workspace', 'acme', '--json']));
  const db = join(dir, 'svc.db');
  const good = await readFile(db);
  await writeFile(db, Buffer.alloc(good.length, 'GARBAGE'));

  const made = json(await svc([...store, 'keys', 'create', '--workspace', 'acme', '--name', 'ci', '--json']));
  assert.match(made.key, /^svc_/);
  assert.deepEqual(
    json(await svc([...store, 'keys', 'list', '--workspace', 'acme', '--json'])).map((k: { id: string }) => k.id),
    [made.id],
  );
  assert.equal(json(await svc([...store, 'keys', 'revoke', made.id, '--workspace', 'acme', '--json'])).id, made.id);
  // Which workspace: chosen as every command chooses (an unknown one lists those there are).
  const unknown = await svc([...store, 'keys', 'list', '--workspace', 'nope']);
  assert.deepEqual([unknown.code, unknown.stderr.trim()], [1, "svc: workspace 'nope' not found; the workspaces are: acme, other"]);
  const which = await svc([...store, 'keys', 'list']);
  assert.equal(which.code, 2);
  assert.match(which.stderr, /--workspace is required: the workspaces are: acme, other/);
  // The other commands of svc.json's records likewise.
  assert.deepEqual(json(await svc([...store, 'domains', 'list', '--workspace', 'acme', '--json'])), []);
  assert.deepEqual(json(await svc([...store, 'addresses', 'list', '--workspace', 'acme', '--json'])), []);
  assert.deepEqual(
    json(await svc([...store, 'workspaces', 'list', '--json'])).map((w: { name: string }) => w.name),
    ['acme', 'other'],
  );

  // A whole open (suppressions list) opens svc.db: refused, naming it; with the database back, the keys are there.
  const whole = await svc([...store, 'suppressions', 'list', '--workspace', 'acme']);
  assert.equal(whole.code, 1);
  assert.match(whole.stderr, /svc\.db cannot be read/);
  await writeFile(db, good);
  await rm(join(dir, 'svc.db-wal'), { force: true });
  assert.equal(json(await svc([...store, 'suppressions', 'list', '--workspace', 'acme', '--json'])).length, 1);
  const listed = json(await svc([...store, 'keys', 'list', '--workspace', 'acme', '--json']));
  assert.deepEqual(
    listed.map((k: { id: string; revoked_at: string | null }) => [k.id, k.revoked_at !== null]),
    [[made.id, true]],
  );

  // Beside a daemon: through its socket, and the key works there at once.
  const d = await serve(store, { listeners: ['api'] });
  t.after(() => d.stop('SIGKILL'));
  const live = json(await svc([...store, 'keys', 'create', '--workspace', 'acme', '--json']));
  const me = await fetch(`${d.urls.api}/api/v2/me`, { headers: { authorization: `Bearer ${live.key}` } });
  assert.equal(me.status, 200);
  assert.equal(json(await svc([...store, 'keys', 'list', '--workspace', 'acme', '--json'])).length, 2);
  assert.equal(await d.stop(), 0);
});
