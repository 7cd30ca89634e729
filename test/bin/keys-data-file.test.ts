// `svc keys list`, `create` and `revoke` (and domains list, addresses list, workspaces list) on a
// file store that no daemon owns open its data file (svc.json) alone (src/store/file/doc-store.ts):
// a damaged journal is not even read by them (a whole open copies its bad line to quarantine/), and
// what they write is the store's own: a whole open sees it. Beside a daemon they go through its
// admin socket, as every command does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

test('keys commands read and write svc.json alone: a damaged journal is left unread; a whole open sees their keys', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...store, 'workspaces', 'create', 'other', '--json']));
  json(await svc([...store, 'suppressions', 'add', 'a@x.test', '--workspace', 'acme', '--json']));
  const journal = join(dir, 'suppressions', 'all.jsonl');
  await writeFile(journal, `${await readFile(journal, 'utf8')}GARBAGE\n`);
  const quarantine = join(dir, 'quarantine');

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
  assert.equal(existsSync(quarantine), false, 'no journal was read');

  // A whole open (suppressions list) reads the journals: the bad line goes aside, the keys are there.
  assert.equal(json(await svc([...store, 'suppressions', 'list', '--workspace', 'acme', '--json'])).length, 1);
  assert.equal(existsSync(quarantine), true, 'a whole open reads the journal');
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
