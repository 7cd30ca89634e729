// What a command loads is most of how long it takes to start (docs/benchmarks.md "Start-up"; the
// figures come from `npm run bench -- cli`, never from a test). These hold the rules that keep admin
// commands quick, through the real binary, by what it loads rather than by a clock:
// - a command loads the parts of the service it uses, not the whole service (commands/context.ts
//   parts(); src/service.ts's PartMaker);
// - keys, domains and addresses commands on an embedded store no daemon owns read its data file
//   alone (svc.db is not opened: only the lock's own SQLite file);
// - beside a running daemon a command talks to its socket and loads none of the store's code;
// - chalk is loaded only by the live views (ink draws through it);
// - Node 22 and later keep the compiled modules between runs (bin/svc: module.enableCompileCache).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { svc, svcProcess, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { ROOT, fromRoot } from '../helpers/root.js';

const HOOK = fromRoot('test/helpers/module-log.mjs');

test('admin commands load what they use: a part of the service, the data file alone, or beside a daemon no file-store code', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  let n = 0;
  /** What the command printed, and the modules it loaded (paths from the checkout's root). */
  const loaded = async (args: string[]) => {
    const log = join(dir, `modules-${++n}.log`);
    const run = await svcProcess([...store, ...args, '--workspace', 'acme', '--json'], {
      env: { NODE_OPTIONS: `--import ${HOOK}`, LOADED_MODULES_LOG: log },
    });
    const modules = new Set(
      (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .map((p) => (p.startsWith('node:') ? p : relative(ROOT, p))),
    );
    return { out: json(run), modules, has: (m: string) => [...modules].some((p) => p.endsWith(m)) };
  };

  const suppressed = json(await svc([...store, 'suppressions', 'add', 'a@x.test', '--workspace', 'acme', '--json']));
  assert.equal(suppressed.address, 'a@x.test');

  // A command of svc.db's records: the whole store, the one part, none of the rest of the service.
  const list = await loaded(['suppressions', 'list']);
  assert.deepEqual(
    list.out.map((s: { address: string }) => s.address),
    ['a@x.test'],
  );
  assert.ok(list.has('dist/src/store/sqlite/sqlite-store.js') && list.has('node_modules/better-sqlite3/lib/index.js'), 'the whole store');
  assert.ok(list.has('dist/src/suppressions/suppressions.js'), 'its part of the service');
  for (const m of [
    'dist/src/send/pipeline.js',
    'dist/src/lists/lists.js',
    'dist/src/people/sign-in.js',
    'dist/src/broadcasts/broadcasts.js',
  ])
    assert.ok(!list.has(m), `${m} is not loaded by suppressions list`);
  assert.ok(![...list.modules].some((p) => p.includes('node_modules/chalk/')), 'chalk is not loaded');

  // A part that sends (the inbox's replies) brings the pipeline, still not the whole service.
  const inbox = await loaded(['inbox', 'list']);
  assert.ok(inbox.has('dist/src/inbox/inbox.js') && inbox.has('dist/src/send/pipeline.js'));
  assert.ok(!inbox.has('dist/src/lists/lists.js') && !inbox.has('dist/src/people/sign-in.js'));

  // The data file's commands: svc.db is not opened.
  const keys = await loaded(['keys', 'list']);
  assert.deepEqual(keys.out, []);
  assert.ok(keys.has('dist/src/store/file/doc-store.js'));
  assert.ok(!keys.has('dist/src/store/sqlite/sqlite-store.js') && !keys.has('dist/src/store/sqlite/database.js'));
  assert.ok(keys.modules.has('node:fs') && list.modules.has('node:fs'), 'built-ins are logged');

  // Beside a daemon: its socket, and nothing of the file store but the client.
  const d = await serve(store, { listeners: ['api'] });
  t.after(() => d.stop('SIGKILL'));
  for (const args of [
    ['suppressions', 'list'],
    ['keys', 'list'],
  ]) {
    const remote = await loaded(args);
    assert.ok(remote.has('dist/src/store/file/remote-store.js'), `${args.join(' ')} talks to the daemon`);
    for (const m of [
      'dist/src/store/sqlite/sqlite-store.js',
      'dist/src/store/file/doc-store.js',
      'dist/src/store/file/lock.js',
      'better-sqlite3/lib/index.js',
    ])
      assert.ok(!remote.has(m), `${args.join(' ')} beside a daemon loads no ${m}`);
  }
  assert.deepEqual((await loaded(['suppressions', 'list'])).out, list.out);
  assert.equal(await d.stop(), 0);
});

test('svc version says whether Node keeps the compiled modules between runs (Node 22 and later)', async () => {
  const v = json(await svcProcess(['version', '--json']));
  const has = typeof (process.getBuiltinModule('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';
  assert.equal(v.start.entry, 'modules');
  if (has) assert.equal(typeof v.start.compile_cache, 'string');
  else assert.equal(v.start.compile_cache, null);
});
