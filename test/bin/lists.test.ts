// `svc lists` and `svc subscribers` through the real binary, with no daemon and beside a running
// one (over its admin socket): --json documents, plain output, exit codes of bad input, and a
// list's removal. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SVC, svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  const ROWS = Number(process.env.SVC_IMPORT_ROWS ?? 10_000);
  test(`${backend}: svc lists and svc subscribers, without and beside a daemon`, async (t) => {
    const store = backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const base = ['--store', store];
    json(await svc([...base, 'workspaces', 'create', 'acme', '--plan', 'trial', '--json']));
    const doi = await svc([...base, 'lists', 'create', 'News', '--double-opt-in']);
    assert.deepEqual(
      [doi.code, doi.stderr.trim()],
      [
        2,
        'svc: a double opt-in list needs a from_address: its confirmation emails are sent from it (or from --system-sender, which is not set)',
      ],
    );
    const list = json(await svc([...base, 'lists', 'create', 'News', '--description', 'Weekly', '--json']));
    assert.deepEqual(
      [list.name, list.description, list.double_opt_in, list.reply_to, list.subscriber_count],
      ['News', 'Weekly', false, '', 0],
    );
    const noSender = await svc([...base, 'lists', 'create', 'Other', '--from-address', 'x@nowhere.test']);
    assert.equal(noSender.code, 2);
    assert.match(noSender.stderr, /from_address 'x@nowhere\.test' is not an active address on a verified domain of this workspace/);

    const d = await serve(base);
    t.after(() => d.stop('SIGKILL'));
    const jane = json(
      await svc([...base, 'subscribers', 'add', list.id, 'Jane@Rcpt.TEST', '--name', 'Jane', '--tags', 'vip,beta', '--json']),
    );
    assert.deepEqual([jane.email, jane.status, jane.tags], ['jane@rcpt.test', 'active', ['vip', 'beta']]);
    const bad = await svc([...base, 'subscribers', 'add', list.id, 'not-an-email']);
    assert.deepEqual([bad.code, bad.stderr.trim()], [2, 'svc: invalid email: expected local@domain']);
    assert.equal((await svc([...base, 'subscribers', 'add', '00000000-0000-4000-8000-000000000000', 'a@rcpt.test'])).code, 1);
    const plain = await svc([...base, 'subscribers', 'list', list.id]);
    assert.match(plain.stdout, /^EMAIL +NAME +STATUS +TAGS +CREATED_AT +ID\njane@rcpt\.test +Jane +active +vip,beta /);
    const unsub = json(await svc([...base, 'subscribers', 'unsubscribe', list.id, jane.id, '--json']));
    assert.equal(unsub.status, 'unsubscribed');
    assert.deepEqual(
      json(await svc([...base, 'subscribers', 'list', list.id, '--status', 'unsubscribed', '--json'])).map((s: { id: string }) => s.id),
      [jane.id],
    );
    assert.equal((await svc([...base, 'subscribers', 'list', list.id, '--status', 'gone'])).code, 2);
    assert.deepEqual(
      json(await svc([...base, 'suppressions', 'list', '--json'])).map((s: { address: string; reason: string }) => [s.address, s.reason]),
      [['jane@rcpt.test', 'unsubscribe']],
    );
    assert.equal(json(await svc([...base, 'lists', 'show', list.id, '--json'])).subscriber_count, 1);
    assert.equal((await svc([...base, 'subscribers', 'remove', list.id, jane.id])).code, 0);
    assert.equal((await svc([...base, 'subscribers', 'remove', list.id, jane.id])).code, 1);

    // A big import through the CLI beside the daemon (a scale workspace: no contacts check): 10,000
    // rows here, SVC_IMPORT_ROWS for the full 100,000 (the benchmark's size; the speed is its business).
    json(await svc([...base, 'workspaces', 'set-plan', 'acme', 'scale', '--json']));
    const dir = await tmpDir(t);
    const csv = join(dir, 'big.csv');
    await writeFile(
      csv,
      [
        'email,name,tags',
        ...Array.from({ length: ROWS }, (_, i) => `user${i}@example${i % 50}.test,"Name, ${i}",a;b`),
        'not-an-email,x,y',
        '',
      ].join('\r\n'),
    );
    const imported = json(await svc([...base, 'subscribers', 'import', list.id, csv, '--json']));
    assert.deepEqual(imported, {
      imported: ROWS,
      skipped: 1,
      errors: [{ line: ROWS + 2, email: 'not-an-email', error: 'invalid email: expected local@domain' }],
    });
    assert.equal(json(await svc([...base, 'lists', 'show', list.id, '--json'])).subscriber_count, ROWS);
    const latin1 = join(dir, 'latin1.csv');
    await writeFile(latin1, Buffer.from('email,name\nj\xe9r\xf4me@x.test,J\xe9r\xf4me\n', 'latin1'));
    const refused = await svc([...base, 'subscribers', 'import', list.id, latin1]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /the CSV is not UTF-8 .*iconv -f latin1 -t utf-8/);
    assert.equal((await svc([...base, 'subscribers', 'import', list.id, join(dir, 'missing.csv')])).code, 2);
    // On a terminal (a pseudo-terminal from script(1)), a progress line on stderr.
    if (existsSync('/usr/bin/script')) {
      const small = join(dir, 'small.csv');
      await writeFile(small, 'a@rcpt.test\nb@rcpt.test\n');
      const tty = await new Promise<string>((res) => {
        const child = spawn(
          '/usr/bin/script',
          ['-qec', [process.execPath, SVC, ...base, 'subscribers', 'import', list.id, small].map((a) => `'${a}'`).join(' '), '/dev/null'],
          { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
        );
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.on('close', () => res(out));
      });
      assert.match(tty, /2 rows, [\d,]+\/s, [\d.]+ s/);
      assert.match(tty, /imported 2, skipped 0/);
    } else t.diagnostic('script(1) is not installed: the progress line on a terminal is not checked');
    assert.equal(await d.stop(), 0);

    assert.equal((await svc([...base, 'lists', 'remove', list.id])).code, 0);
    assert.equal((await svc([...base, 'lists', 'show', list.id])).code, 1);
    assert.deepEqual(json(await svc([...base, 'lists', 'list', '--json'])), []);
  });
}
