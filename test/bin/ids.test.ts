// Short ids, as git takes them: every id-taking command takes a unique prefix (at least 4
// characters); an unknown one is "not found"; one that fits several lists them and exits 1. Tables
// fit a narrow terminal by showing ids as their shortest unique prefix (at least 8), and print
// them whole into a pipe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { noTerminal, onTerminal, unescaped } from '../helpers/terminal.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { plainMail, transact } from '../helpers/mx.js';
import { resolveId } from '../../commands/ids.js';
import { isSvcError } from '../../src/errors.js';
import { uniquePrefixLength } from '../../commands/output.js';

test('a unique prefix stands for the id in every kind of id argument; an unknown one is not found', async (t) => {
  const dns = await fixtureDns(t);
  const base = ['--store', `file:${await tmpDir(t)}`, '--dns-server', dns.server];
  const key = await cliSender(base, dns);
  const list = json(await svc([...base, 'lists', 'create', 'News', '--json']));
  assert.equal(json(await svc([...base, 'lists', 'show', list.id.slice(0, 8), '--json'])).id, list.id);
  const seq = json(await svc([...base, 'sequences', 'create', 'Welcome', '--list', list.id.slice(0, 6), '--json']));
  assert.equal(seq.list_id, list.id, 'an option that takes an id takes a prefix too');
  const text = join(await tmpDir(t), 'step.txt');
  await writeFile(text, 'Hi');
  const step = json(
    await svc([
      ...base,
      'steps',
      'add',
      seq.id.slice(0, 8),
      '--position',
      '0',
      '--delay-hours',
      '0',
      '--subject',
      'Hi',
      '--text',
      text,
      '--json',
    ]),
  );
  const removed = await svc([...base, 'steps', 'remove', seq.id.slice(0, 8), step.id.slice(0, 8)]);
  assert.equal(removed.code, 0, removed.stderr);
  // A subscriber, within its list (itself given short).
  const sub = json(await svc([...base, 'subscribers', 'add', list.id, 'ann@rcpt.test', '--json']));
  const unsub = await svc([...base, 'subscribers', 'unsubscribe', list.id.slice(0, 8), sub.id.slice(0, 8), '--json']);
  assert.equal(json(unsub).status, 'unsubscribed', unsub.stderr);
  assert.deepEqual(json(await svc([...base, 'subscribers', 'remove', list.id, sub.id.slice(0, 5), '--json'])), {
    id: sub.id,
    removed: true,
  });
  const keys = json(await svc([...base, 'keys', 'list', '--json']));
  assert.equal(json(await svc([...base, 'keys', 'revoke', keys[0].id.slice(0, 4), '--json'])).id, keys[0].id);

  // A message (from the daemon's log): show, events and explain by their first 8 characters.
  const d = await serve(base, { listeners: ['api', 'mx'] });
  t.after(() => d.stop('SIGKILL'));
  const fresh = json(await svc([...base, 'keys', 'create', '--json'])).key;
  const sent = await postEmail(d, fresh ?? key, 'jane@rcpt.test', 'Short ids');
  assert.equal(sent.status, 202);
  const short = sent.body.id.slice(0, 8);
  assert.equal(json(await svc([...base, 'messages', 'show', short, '--json'])).id, sent.body.id);
  const explained = await svc([...base, 'messages', 'explain', short]);
  assert.equal(explained.code, 0, explained.stderr);
  assert.match(explained.stdout, new RegExp(sent.body.id));

  // The team inbox: an item, its thread (through the daemon, which holds the store).
  const mail = plainMail('jane@rcpt.test', 'hello@acme.test', 'Short ids in the inbox');
  assert.match((await transact(d.urls.mx!, 'jane@rcpt.test', ['hello@acme.test'], mail)).end, /^250 /);
  const [received] = json(await svc([...base, 'inbox', 'list', '--json']));
  assert.equal(json(await svc([...base, 'inbox', 'show', received.id.slice(0, 8), '--json'])).id, received.id);
  const [copy] = json(await svc([...base, 'inbox', 'list', '--folder', 'sent', '--json']));
  assert.equal(json(await svc([...base, 'inbox', 'show', copy.id.slice(0, 8), '--json'])).id, copy.id, 'a Sent copy');
  const thread = received.thread_id.slice(0, 7);
  assert.equal(json(await svc([...base, 'inbox', 'list', '--thread', thread, '--json']))[0].id, received.id);
  assert.equal(json(await svc([...base, 'inbox', 'mark', thread, '--read', '--json'])).thread_id, received.thread_id);
  assert.equal(json(await svc([...base, 'inbox', 'delete', received.id.slice(0, 6), '--json'])).id, received.id);
  assert.equal(await d.stop(), 0);

  const unknown = await svc([...base, 'messages', 'explain', 'ffffffff']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^svc: .*not found/m);
});

test('a prefix that fits several ids is refused with the candidates named (exit 1)', async () => {
  const found = async () => [
    { id: '16f85e4c-0000-4000-8000-000000000001', label: 'https://a.example/hook' },
    { id: '16f85e4c-0000-4000-8000-000000000002', label: 'https://b.example/hook' },
  ];
  await assert.rejects(resolveId('endpoint', '16f85e4c', found), (e: unknown) => {
    assert.ok(isSvcError(e));
    assert.equal(e.kind, 'ambiguous');
    assert.equal(e.spec.exit, 1);
    assert.equal(
      e.message,
      "'16f85e4c' is the start of 2 endpoint ids: 16f85e4c-0000-4000-8000-000000000001 (https://a.example/hook), 16f85e4c-0000-4000-8000-000000000002 (https://b.example/hook); give more of it",
    );
    return true;
  });
  assert.equal(await resolveId('endpoint', 'ffff0000', found), 'ffff0000', 'none fits: as given');
  assert.equal(await resolveId('endpoint', '16f', found), '16f', 'shorter than 4: as given');
  // Shown ids are as long as it takes to tell them apart, at least 8.
  assert.equal(uniquePrefixLength(['16f85e4c-0000-4000-8000-000000000001', '16f85e4c-0000-4000-8000-000000000002']), 36);
  assert.equal(uniquePrefixLength(['16f85e4c-0000', '16f85e5d-0000']), 8);
  assert.equal(uniquePrefixLength(['16f85e4c1', '16f85e4c2']), 9);
});

test(
  'a table on a narrow terminal shows ids by their unique prefix and times to the minute; into a pipe, whole',
  { skip: noTerminal },
  async (t) => {
    const base = ['--store', `file:${await tmpDir(t)}`, '--workspace', 'acme'];
    json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
    const made = [0, 1, 2].map(async () =>
      json(await svc([...base, 'keys', 'create', '--name', 'a-rather-long-name-for-a-key', '--json'])),
    );
    const keys = await Promise.all(made);
    const narrow = unescaped((await onTerminal({ args: [...base, 'keys', 'list'], cols: 72 })).out);
    const lines = narrow.trim().split('\n');
    assert.ok(
      lines.every((l) => l.length <= 72),
      narrow,
    );
    for (const k of keys) assert.match(narrow, new RegExp(`^${k.id.slice(0, 8)}\\s`, 'm'), 'the id by its prefix');
    assert.match(narrow, / \d{4}-\d\d-\d\d \d\d:\d\d /, 'times to the minute');
    const piped = await svc([...base, 'keys', 'list']);
    for (const k of keys) assert.match(piped.stdout, new RegExp(`^${k.id}\\s`, 'm'), 'whole into a pipe');
  },
);
