// The real bin/svc as a child process: the command line of CONTRACT.md, --json, exit codes, and
// `svc serve` with admin commands run beside it on the same file store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fromRoot } from '../helpers/root.js';

const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8'));
const oneLine = (s: string) => s.trim().split('\n').length === 1;

test('--version, --help and help <command>', async () => {
  const v = await svc(['--version']);
  assert.deepEqual([v.code, v.stdout.trim()], [0, pkg.version]);
  const h = await svc(['--help']);
  assert.equal(h.code, 0);
  for (const word of ['workspaces', 'keys', 'serve', '--store', '--json']) assert.ok(h.stdout.includes(word), word);
  const hk = await svc(['help', 'keys']);
  assert.equal(hk.code, 0);
  assert.match(hk.stdout, /create/);
});

test("a noun without its verb shows the noun's help on stderr and exits 2; help asked for exits 0", async () => {
  for (const noun of ['store', 'keys', 'webhooks']) {
    const r = await svc([noun]);
    assert.equal(r.code, 2, noun);
    assert.match(r.stderr, new RegExp(`Usage: svc ${noun}`));
    assert.equal(r.stdout, '');
  }
  for (const args of [['--help'], ['keys', '--help'], ['help', 'keys']]) assert.equal((await svc(args)).code, 0, args.join(' '));
});

test('wrong usage exits 2 with one line on stderr', async (t) => {
  const store = `file:${await tmpDir(t)}`;
  for (const args of [
    ['bogus'],
    ['keys', 'bogus'],
    ['workspaces', 'create'],
    ['workspaces', 'list', '--nope'],
    ['--store', 'mysql://db', 'workspaces', 'list'],
    ['--store', store, 'serve', '--api-port', 'http'],
    ['--store', store, 'serve', '--base-url', '::'],
    ['--store', store, 'workspaces', 'create', 'Not A Name'],
    ['--store', store, 'workspaces', 'create', 'acme', '--plan', 'gold'],
  ]) {
    const r = await svc(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(oneLine(r.stderr), `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout, '');
  }
  // None of that created anything: the store is still missing, which a command that reads says.
  const after = await svc(['--store', store, 'keys', 'list']);
  assert.equal(after.code, 1);
  assert.match(after.stderr, /^svc: no svc store at /);
});

test('workspaces and keys with --json, singular aliases, env SVC_STORE', async (t) => {
  const dir = await tmpDir(t);
  const env = { SVC_STORE: `file:${dir}` };
  const ws = json(await svc(['workspaces', 'create', 'acme', '--json'], { env }));
  assert.deepEqual(Object.keys(ws).sort(), ['id', 'name', 'plan']);
  assert.equal(ws.plan, 'trial');
  json(await svc(['workspace', 'create', 'beta', '--plan', 'pro', '--json'], { env }));
  assert.deepEqual(
    json(await svc(['workspaces', 'list', '--json'], { env })).map((w: any) => [w.name, w.plan]),
    [
      ['acme', 'trial'],
      ['beta', 'pro'],
    ],
  );
  assert.equal(json(await svc(['workspaces', 'set-plan', 'acme', 'starter', '--json'], { env })).plan, 'starter');

  const dup = await svc(['workspaces', 'create', 'acme'], { env });
  assert.equal(dup.code, 1);
  assert.ok(oneLine(dup.stderr));
  assert.match(dup.stderr, /already exists/);

  const k = json(await svc(['keys', 'create', '--workspace', 'beta', '--name', 'ci', '--scopes', 'send,newsletter', '--json'], { env }));
  assert.match(k.key, /^svc_[0-9a-f]{48}$/);
  assert.deepEqual([k.name, k.scopes], ['ci', ['send', 'newsletter']]);
  const d = json(await svc(['key', 'create', '--json'], { env: { ...env, SVC_WORKSPACE: 'beta' } }));
  assert.deepEqual(d.scopes, ['send', 'read']);
  const list = await svc(['keys', 'list', '--workspace', 'beta', '--json'], { env });
  assert.ok(!list.stdout.includes(k.key) && !list.stdout.includes(d.key), 'list never shows a key');
  const rows = json(list);
  assert.deepEqual(
    rows.map((r: any) => r.id),
    [k.id, d.id],
  );
  for (const r of rows) for (const f of ['id', 'name', 'scopes', 'prefix', 'created_at', 'revoked_at']) assert.ok(f in r, f);
  const rev = json(await svc(['keys', 'revoke', k.id, '--workspace', 'beta', '--json'], { env }));
  assert.equal(rev.id, k.id);
  assert.ok(Date.parse(rev.revoked_at));
  const missing = await svc(['keys', 'revoke', k.id, '--workspace', 'acme'], { env });
  assert.equal(missing.code, 1);
  // Human output: a table, and no colour codes when stdout is not a TTY.
  const human = await svc(['keys', 'list', '--workspace', 'beta'], { env });
  assert.match(human.stdout, /^ID\s+NAME\s+SCOPES/);
  assert.ok(!human.stdout.includes('\x1b['));
  assert.ok(!(await readFile(join(dir, 'svc.json'), 'utf8')).includes(k.key), 'only the hash is stored');
});

test('serve: ready line, admin commands beside it take effect at once, SIGTERM exits 0', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  const daemon = await serve(store);
  t.after(() => daemon.stop('SIGKILL'));
  const api = daemon.urls.api!;
  assert.match(api, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(daemon.stdout(), /^svc: api listening on http:\/\/127\.0\.0\.1:\d+$/m);
  assert.deepEqual(await (await fetch(`${api}/healthz`)).json(), { ok: true });

  // 20 `svc keys create` at once while the daemon answers requests.
  const first = json(await svc([...store, 'keys', 'create', '--json']));
  let serving = true;
  let answered = 0;
  const load = (async () => {
    while (serving) {
      const r = await fetch(`${api}/api/v2/me`, { headers: { authorization: `Bearer ${first.key}` } });
      assert.equal(r.status, 200);
      await r.arrayBuffer();
      answered++;
    }
  })();
  const created = await Promise.all(
    Array.from({ length: 20 }, (_, i) => svc([...store, 'keys', 'create', '--name', `k${i}`, '--json']).then(json)),
  );
  serving = false;
  await load;
  assert.ok(answered > 0);
  for (const k of created) {
    const r = await fetch(`${api}/api/v2/me`, { headers: { authorization: `Bearer ${k.key}` } });
    assert.deepEqual([r.status, await r.json()], [200, { tenant: 'acme', permissions: ['send', 'read'] }]);
  }
  const listed = json(await svc([...store, 'keys', 'list', '--json'])).map((k: any) => k.id);
  for (const k of [first, ...created]) assert.ok(listed.includes(k.id));

  // Revocation through the CLI is effective on the daemon's next request.
  json(await svc([...store, 'keys', 'revoke', created[0].id, '--json']));
  const after = await fetch(`${api}/api/v2/me`, { headers: { authorization: `Bearer ${created[0].key}` } });
  assert.deepEqual([after.status, await after.json()], [401, { error: 'invalid or revoked api key' }]);

  // A second daemon on the same store is refused.
  const second = await svc([...store, 'serve', '--api-port', '0']);
  assert.equal(second.code, 1);
  assert.ok(oneLine(second.stderr));
  assert.match(second.stderr, /in use by svc serve/);

  assert.equal(await daemon.stop('SIGTERM'), 0);
  const left = await readdir(dir);
  // The socket goes; svc.lock stays (only the flock on it was the daemon's).
  assert.ok(!left.includes('svc.sock'), `socket removed: ${left}`);
  // Everything written through the daemon is in the store after it stopped.
  const again = json(await svc([...store, 'keys', 'list', '--json']));
  assert.equal(again.length, 21);
  assert.equal(again.find((k: any) => k.id === created[0].id).revoked_at !== null, true);
  assert.ok(!daemon.stderr().includes(first.key), 'no key in the daemon log');
});

test('serve after a crash: the stale lock and socket of a killed daemon are taken over', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  const d1 = await serve(store);
  await d1.stop('SIGKILL');
  const d2 = await serve(store);
  t.after(() => d2.stop('SIGKILL'));
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  assert.equal(await d2.stop('SIGINT'), 0);
});

test('a store that cannot be read or written: one line, exit 1, nothing overwritten', async (t) => {
  const dir = await tmpDir(t);
  await writeFile(join(dir, 'svc.json'), '{"version":1,');
  const r = await svc(['--store', `file:${dir}`, 'workspaces', 'list']);
  assert.equal(r.code, 1);
  assert.ok(oneLine(r.stderr));
  assert.match(r.stderr, /cannot be parsed/);
  assert.equal(await readFile(join(dir, 'svc.json'), 'utf8'), '{"version":1,');
  const s = await svc(['--store', `file:${dir}`, 'serve', '--api-port', '0']);
  assert.equal(s.code, 1);
  assert.ok(oneLine(s.stderr));

  const w = await svc(['--store', 'file:/dev/null/svc', 'workspaces', 'create', 'acme']);
  assert.equal(w.code, 1);
  assert.ok(oneLine(w.stderr));
  assert.match(w.stderr, /not writable/);
});

test('a smarthost password given in --outbound does not stay in /proc/PID/cmdline', async (t) => {
  const store = ['--store', `file:${await tmpDir(t)}`];
  const d = await serve([...store, '--outbound', 'smtp://mailer:s3cret-pw@127.0.0.1:2', '--no-delivery']);
  t.after(() => d.stop());
  const cmdline = await readFile(`/proc/${d.child.pid}/cmdline`, 'utf8').catch(() => null);
  if (cmdline === null) return t.skip('no /proc here');
  assert.doesNotMatch(cmdline, /s3cret-pw/);
  assert.match(cmdline.replace(/\0/g, ' '), /smtp:\/\/mailer:\*\*\*@127\.0\.0\.1:2/);
});
