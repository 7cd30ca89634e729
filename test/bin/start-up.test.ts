// What a command loads is most of how long it takes to start (README "Start-up"; the figures come
// from `npm run bench -- cli`, never from a test). These hold the rules that keep admin commands
// quick, through the real binary, by what it loads rather than by a clock.
//
// Commands run from dist/cli.cjs, one file with V8's code cache for it (scripts/bundle-cli.mjs):
// - every command but `svc serve` starts from it, loads none of dist's modules but a live view,
//   and V8 takes the cache; with other V8 flags it refuses it, and the command works all the same.
// On dist's modules (`svc serve`, and every command with SVC_BUNDLE=0):
// - a command loads the parts of the service it uses, not the whole service (commands/context.ts
//   parts(); src/service-parts.ts);
// - keys, domains and addresses commands on a file store no daemon owns read its data file alone
//   (no journal code);
// - beside a running daemon a command talks to its socket and loads none of the file store's code;
// - chalk is loaded only by the live views (ink draws through it);
// - with no daemon, the store's lock is flock(2) from native/, not a child process: an admin command
//   loads no child_process (commander's is loaded on demand, patches/commander+14.0.3.patch).
// The build joins the file store's modules into a few files (scripts/join-file-store.mjs): a loaded
// file of that folder counts as loading every module it holds (its joined.json says which).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOOK = fileURLToPath(new URL('../helpers/module-log.mjs', import.meta.url));
const FILE_STORE = 'dist/src/store/file';

/** The modules a loaded file holds: itself, and in the joined file store the modules joined into it. */
async function heldBy(): Promise<(path: string) => string[]> {
  const joined = JSON.parse(await readFile(join(ROOT, FILE_STORE, 'joined.json'), 'utf8')) as Record<string, string[]>;
  return (path) => [
    path,
    ...(path.startsWith(`${FILE_STORE}/`) ? (joined[path.slice(FILE_STORE.length + 1)] ?? []) : []).map((m) => `${FILE_STORE}/${m}`),
  ];
}

test('on dist/ modules, admin commands load what they use: a part of the service, the data file alone, or beside a daemon no file-store code', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  const held = await heldBy();
  let n = 0;
  /** What the command printed, and the modules it loaded (paths from the checkout's root). */
  const loaded = async (args: string[]) => {
    const log = join(dir, `modules-${++n}.log`);
    const run = await svc([...store, ...args, '--workspace', 'acme', '--json'], {
      env: { NODE_OPTIONS: `--import ${HOOK}`, LOADED_MODULES_LOG: log, SVC_BUNDLE: '0' },
    });
    const modules = new Set(
      (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .flatMap((p) => (p.startsWith('node:') ? [p] : held(relative(ROOT, p)))),
    );
    return { out: json(run), modules, has: (m: string) => [...modules].some((p) => p.endsWith(m)) };
  };

  const suppressed = json(await svc([...store, 'suppressions', 'add', 'a@x.test', '--workspace', 'acme', '--json']));
  assert.equal(suppressed.address, 'a@x.test');

  // A journal's command: the whole store, the one part, none of the rest of the service.
  const list = await loaded(['suppressions', 'list']);
  assert.deepEqual(
    list.out.map((s: { address: string }) => s.address),
    ['a@x.test'],
  );
  assert.ok(list.has('dist/src/store/file/file-store.js') && list.has('dist/src/store/file/journal.js'), 'the whole file store');
  assert.ok(list.has('dist/src/suppressions/suppressions.js'), 'its part of the service');
  for (const m of ['dist/src/service.js', 'dist/src/send/pipeline.js', 'dist/src/lists/lists.js', 'dist/src/people/sign-in.js'])
    assert.ok(!list.has(m), `${m} is not loaded by suppressions list`);
  assert.ok(![...list.modules].some((p) => p.includes('node_modules/chalk/')), 'chalk is not loaded');

  // A part that sends (the inbox's replies) brings the pipeline, still not the whole service.
  const inbox = await loaded(['inbox', 'list']);
  assert.ok(inbox.has('dist/src/inbox/inbox.js') && inbox.has('dist/src/send/pipeline.js'));
  assert.ok(!inbox.has('dist/src/service.js'));

  // The data file's commands: no journal code at all.
  const keys = await loaded(['keys', 'list']);
  assert.deepEqual(keys.out, []);
  assert.ok(keys.has('dist/src/store/file/doc-store.js'));
  assert.ok(!keys.has('dist/src/store/file/file-store.js') && !keys.has('dist/src/store/file/journal.js'));
  // The lock is taken by a system call: no child process, so not even the module that starts one.
  assert.ok(keys.modules.has('node:fs') && list.modules.has('node:fs'), 'built-ins are logged');
  for (const run of [keys, list]) assert.ok(!run.modules.has('node:child_process'), 'no child_process with no daemon');

  // Beside a daemon: its socket, and nothing of the file store but the client.
  const d = await serve(store, { listeners: ['api'] });
  t.after(() => d.stop('SIGKILL'));
  for (const args of [
    ['suppressions', 'list'],
    ['keys', 'list'],
  ]) {
    const remote = await loaded(args);
    assert.ok(remote.has('dist/src/store/file/remote-store.js'), `${args.join(' ')} talks to the daemon`);
    for (const m of ['file-store.js', 'doc-store.js', 'lock.js', 'journal.js'])
      assert.ok(!remote.has(`dist/src/store/file/${m}`), `${args.join(' ')} beside a daemon loads no ${m}`);
  }
  // The joined store holds every module it had, each once; a module loaded on demand stays apart.
  const joined = JSON.parse(await readFile(join(ROOT, FILE_STORE, 'joined.json'), 'utf8')) as Record<string, string[]>;
  const all = Object.values(joined).flat();
  assert.equal(new Set(all).size, all.length, 'no module is joined twice');
  for (const m of ['journal.js', 'lock.js', 'file-store.js', 'doc-store.js']) assert.ok(all.includes(m), `${m} is joined`);
  assert.ok(
    !Object.entries(joined).some(([f, ms]) => ms.includes('snapshot.js') && ms.includes('journal.js')),
    'snapshot.js is loaded on demand',
  );
  assert.deepEqual((await loaded(['suppressions', 'list'])).out, list.out);
  assert.equal(await d.stop(), 0);
});

test('commands start from the bundle with its code cache, load none of dist/ modules, and work when V8 refuses the cache', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...store, 'suppressions', 'add', 'a@x.test', '--workspace', 'acme', '--json']));
  let n = 0;
  const loaded = async (args: string[], env: Record<string, string> = {}) => {
    const log = join(dir, `bundle-${++n}.log`);
    const run = await svc([...store, ...args, '--workspace', 'acme', '--json'], {
      env: { ...env, NODE_OPTIONS: `--import ${HOOK} ${env.NODE_OPTIONS ?? ''}`.trim(), LOADED_MODULES_LOG: log },
    });
    const modules = (await readFile(log, 'utf8')).trim().split('\n');
    return { out: json(run), stderr: run.stderr, modules, dist: modules.filter((p) => relative(ROOT, p).startsWith('dist/')) };
  };
  const version = await loaded(['version']);
  assert.deepEqual(version.out.start, { entry: 'bundle', code_cache: 'accepted' });
  const bundled = await loaded(['suppressions', 'list']);
  assert.deepEqual(
    bundled.out.map((s: { address: string }) => s.address),
    ['a@x.test'],
  );
  assert.deepEqual(bundled.dist, [], 'no module of dist/ is loaded: the bundle holds them');
  assert.ok(bundled.modules.includes(join(ROOT, 'bin/bundle.mjs')), 'through bin/bundle.mjs');
  assert.ok(!bundled.modules.includes('node:child_process'), 'no child_process');
  // Other V8 flags: the cache is refused, the bundle compiles as usual, and the answer is the same.
  const refused = await loaded(['version'], { NODE_OPTIONS: '--max-old-space-size=512' });
  assert.deepEqual(refused.out.start, { entry: 'bundle', code_cache: 'refused' });
  assert.deepEqual((await loaded(['suppressions', 'list'], { NODE_OPTIONS: '--max-old-space-size=512' })).out, bundled.out);
  // SVC_BUNDLE=0: dist's modules, as `svc serve` runs.
  const modules = await loaded(['version'], { SVC_BUNDLE: '0' });
  assert.deepEqual(modules.out.start, { entry: 'modules', code_cache: null });
  assert.equal(modules.stderr, '', 'SVC_BUNDLE is known: no warning');
  assert.ok(modules.dist.some((p) => p.endsWith('dist/commands/main.js')));
});
