// `svc lists` and `svc subscribers` through the real binary, with no daemon and beside a running
// one (over its admin socket): --json documents, plain output, exit codes of bad input, and a
// list's removal. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc lists and svc subscribers, without and beside a daemon`, async (t) => {
    const store = backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const base = ['--store', store];
    json(await svc([...base, 'workspaces', 'create', 'acme', '--plan', 'trial', '--json']));
    const list = json(await svc([...base, 'lists', 'create', 'News', '--description', 'Weekly', '--double-opt-in', '--json']));
    assert.deepEqual([list.name, list.description, list.double_opt_in, list.reply_to, list.subscriber_count], ['News', 'Weekly', true, '', 0]);
    const noSender = await svc([...base, 'lists', 'create', 'Other', '--from-address', 'x@nowhere.test']);
    assert.equal(noSender.code, 2);
    assert.match(noSender.stderr, /from_address 'x@nowhere\.test' is not an active address on a verified domain of this workspace/);

    const d = await serve(base);
    t.after(() => d.stop('SIGKILL'));
    const jane = json(await svc([...base, 'subscribers', 'add', list.id, 'Jane@Rcpt.TEST', '--name', 'Jane', '--tags', 'vip,beta', '--json']));
    assert.deepEqual([jane.email, jane.status, jane.tags], ['jane@rcpt.test', 'pending', ['vip', 'beta']]);
    const bad = await svc([...base, 'subscribers', 'add', list.id, 'not-an-email']);
    assert.deepEqual([bad.code, bad.stderr.trim()], [2, 'svc: invalid email: expected local@domain']);
    assert.equal((await svc([...base, 'subscribers', 'add', '00000000-0000-4000-8000-000000000000', 'a@rcpt.test'])).code, 1);
    const plain = await svc([...base, 'subscribers', 'list', list.id]);
    assert.match(plain.stdout, /^EMAIL +NAME +STATUS +TAGS +CREATED_AT +ID\njane@rcpt\.test +Jane +pending +vip,beta /);
    const unsub = json(await svc([...base, 'subscribers', 'unsubscribe', list.id, jane.id, '--json']));
    assert.equal(unsub.status, 'unsubscribed');
    assert.deepEqual(json(await svc([...base, 'subscribers', 'list', list.id, '--status', 'unsubscribed', '--json'])).map((s: { id: string }) => s.id), [jane.id]);
    assert.equal((await svc([...base, 'subscribers', 'list', list.id, '--status', 'gone'])).code, 2);
    assert.deepEqual(json(await svc([...base, 'suppressions', 'list', '--json'])).map((s: { address: string; reason: string }) => [s.address, s.reason]), [['jane@rcpt.test', 'unsubscribe']]);
    assert.equal(json(await svc([...base, 'lists', 'show', list.id, '--json'])).subscriber_count, 1);
    assert.equal((await svc([...base, 'subscribers', 'remove', list.id, jane.id])).code, 0);
    assert.equal((await svc([...base, 'subscribers', 'remove', list.id, jane.id])).code, 1);
    assert.equal(await d.stop(), 0);

    assert.equal((await svc([...base, 'lists', 'remove', list.id])).code, 0);
    assert.equal((await svc([...base, 'lists', 'show', list.id])).code, 1);
    assert.deepEqual(json(await svc([...base, 'lists', 'list', '--json'])), []);
  });
}
