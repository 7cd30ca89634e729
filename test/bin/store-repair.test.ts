// A file store with a damaged journal line in the middle and records of the wrong shape: the store
// still opens (the line is skipped and copied to quarantine/, and the daemon says so at every
// start), `svc store check` reports it with file and line, `svc store repair` is a dry run until
// --apply, and after it the store is clean. svc.json of the wrong shape names its place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

test('an unreadable journal line is set aside, reported, and repaired on request', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...store, 'suppressions', 'add', 'a@x.test', '--json']));
  json(await svc([...store, 'suppressions', 'add', 'b@x.test', '--json']));
  const journal = join(dir, 'suppressions', 'all.jsonl');
  const [first, second] = (await readFile(journal, 'utf8')).split('\n');
  // A line of garbage and a record of the wrong shape between two good lines, and a torn tail.
  await writeFile(journal, `${first}\nGARBAGE\n{"t":"add","s":{"workspace_id":7}}\n${second}\n{"t":"add","s":{"wor`);
  const damaged = await readFile(journal, 'utf8');

  const check = await svc([...store, 'store', 'check', '--json']);
  assert.equal(check.code, 3, check.stderr);
  const report = JSON.parse(check.stdout);
  assert.equal(report.ok, false);
  assert.deepEqual(
    report.problems.map((p: { kind: string; line: number | null }) => [p.kind, p.line]),
    [
      ['bad_line', 2],
      ['bad_line', 3],
      ['torn_tail', null],
    ],
  );
  assert.match(report.problems[0].reason, /not JSON/);
  assert.match(report.problems[1].reason, /s: field workspace_id is not a string/);

  // The store opens: both good suppressions are there, and the bad lines were copied aside.
  const list = json(await svc([...store, 'suppressions', 'list', '--json']));
  assert.deepEqual(list.map((s: { address: string }) => s.address).sort(), ['a@x.test', 'b@x.test']);
  const quarantined = (await readFile(join(dir, 'quarantine', 'suppressions.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    quarantined.map((q) => [q.line, Buffer.from(q.base64, 'base64').toString()]),
    [
      [2, 'GARBAGE'],
      [3, '{"t":"add","s":{"workspace_id":7}}'],
    ],
  );

  // The daemon starts, and says so.
  const d = await serve(store);
  const stopped = await d.stop();
  assert.equal(stopped, 0);
  assert.match(d.stderr(), /2 unreadable journal line\(s\) skipped and copied to quarantine\/ \(.*all\.jsonl line 2 at byte \d+: not JSON/);

  // A dry run changes nothing.
  const dry = json(await svc([...store, 'store', 'repair', '--json']));
  assert.equal(dry.applied, false);
  assert.equal(dry.actions.length, 2);
  assert.equal(await readFile(journal, 'utf8'), damaged);

  const applied = json(await svc([...store, 'store', 'repair', '--apply', '--json']));
  assert.equal(applied.applied, true);
  assert.equal(applied.ok, true);
  assert.deepEqual(applied.problems, []);
  assert.equal(await readFile(journal, 'utf8'), `${first}\n${second}\n`);
  assert.equal((await svc([...store, 'store', 'check'])).code, 0);
  // Quarantine keeps each line once.
  assert.equal((await readFile(join(dir, 'quarantine', 'suppressions.jsonl'), 'utf8')).trim().split('\n').length, 2);
  const d2 = await serve(store);
  assert.equal(await d2.stop(), 0);
  assert.doesNotMatch(d2.stderr(), /unreadable/);
});

test('check of a directory that holds no store is an error, not a clean bill', async (t) => {
  const dir = await tmpDir(t);
  const r = await svc(['--store', `file:${join(dir, 'nothing-here')}`, 'store', 'check']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no svc store at .*nothing-here \(svc init makes one/);
});

test('repair --apply refuses while svc serve owns the store', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  const d = await serve(store);
  t.after(() => d.stop());
  const r = await svc([...store, 'store', 'repair', '--apply']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /in use by svc serve .*stop it before svc store repair --apply/);
});

test('svc.json with a record of the wrong shape is reported with its place, not a TypeError', async (t) => {
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  json(await svc([...store, 'keys', 'create', '--json']));
  const doc = JSON.parse(await readFile(join(dir, 'svc.json'), 'utf8'));
  delete doc.keys[0].hash;
  await writeFile(join(dir, 'svc.json'), JSON.stringify(doc));
  const r = await svc([...store, 'keys', 'list']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /svc\.json is not a readable svc store \(keys\[0\]: field hash is missing\); it was left untouched/);
  assert.doesNotMatch(r.stderr, /TypeError/);
  const check = await svc([...store, 'store', 'check', '--json']);
  assert.equal(check.code, 3);
  assert.equal(JSON.parse(check.stdout).problems[0].kind, 'data_file');
  assert.deepEqual(await readdir(dir).then((f) => f.includes('svc.json')), true);
});
