// `svc users` through the real binary, without a daemon and beside one (over its admin socket):
// --json documents, the seats quota (exit 1 with the quota body), roles and the last owner, reset
// and removal, one-time links kept only as hashes. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc users: people with roles, the seats quota, reset and removal`, async (t) => {
    const dir = backend === 'file' ? await tmpDir(t) : '';
    const store = backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${dir}`;
    // The link is on the daemon's public URL, which the CLI reads as the daemon does (env or config file).
    const env = { SVC_BASE_URL: 'https://mail.acme.test' };
    const run = (args: string[]) => svc(['--store', store, ...args], { env });
    json(await run(['workspaces', 'create', 'acme', '--plan', 'trial', '--json']));
    const ann = json(await run(['users', 'create', 'Ann@Acme.TEST', '--role', 'owner', '--name', 'Ann Lee', '--json']));
    assert.deepEqual(Object.keys(ann), ['id', 'email', 'name', 'role', 'sign_in_url']);
    assert.deepEqual([ann.email, ann.name, ann.role], ['ann@acme.test', 'Ann Lee', 'owner']);
    const token = /^https:\/\/mail\.acme\.test\/app\/sign-in\/([A-Za-z0-9_-]{43})$/.exec(ann.sign_in_url)?.[1];
    assert.ok(token, ann.sign_in_url);
    if (backend === 'file') {
      const doc = await readFile(join(dir, 'svc.json'), 'utf8');
      assert.ok(!doc.includes(token), 'the link itself is not stored');
      assert.ok(doc.includes(createHash('sha256').update(token).digest('hex')), 'its hash is');
    }
    // Bad input: exit 2 with a sentence, nothing stored.
    for (const [args, err] of [
      [['users', 'create', 'bob@acme.test'], 'svc: missing --role (owner, admin or member)'],
      [['users', 'create', 'bob@acme.test', '--role', 'boss'], "svc: invalid role 'boss': owner, admin or member"],
      [['users', 'create', 'not an email', '--role', 'member'], "svc: invalid email 'not an email': expected local@domain"],
      [
        ['users', 'create', 'bob@acme.test', '--role', 'member', '--name', 'Bob\r\nBcc: x@evil.test'],
        'svc: a name is one line of printable characters',
      ],
    ] as const) {
      const r = await run([...args]);
      assert.deepEqual([r.code, r.stderr.trim()], [2, err]);
    }
    assert.equal((await run(['users', 'create', 'ann@acme.test', '--role', 'member'])).code, 1, 'already a member');

    const d = await serve(['--store', store], { env });
    t.after(() => d.stop('SIGKILL'));
    json(await run(['users', 'create', 'bob@acme.test', '--role', 'member', '--json']));
    // The trial plan has 2 seats.
    const over = await run(['users', 'create', 'cy@acme.test', '--role', 'member', '--json']);
    assert.equal(over.code, 1);
    assert.deepEqual(JSON.parse(over.stdout), {
      error: 'the trial plan allows 2 seats (2 in use); upgrade the plan or remove one',
      code: 'quota_exceeded',
      kind: 'seats',
      limit: 2,
      used: 2,
      upgrade_url: 'https://mail.acme.test/app/w/acme/workspace#plan',
    });
    const list = json(await run(['users', 'list', '--json']));
    assert.deepEqual(
      list.map((u: { email: string; role: string; last_sign_in_at: null }) => [u.email, u.role, u.last_sign_in_at]),
      [
        ['ann@acme.test', 'owner', null],
        ['bob@acme.test', 'member', null],
      ],
    );
    assert.deepEqual(Object.keys(list[0]), ['id', 'email', 'name', 'role', 'created_at', 'last_sign_in_at']);
    assert.match((await run(['users', 'list'])).stdout, /^EMAIL +NAME +ROLE +LAST_SIGN_IN_AT\nann@acme\.test +Ann Lee +owner +never\n/);
    // The last owner stays.
    const demote = await run(['users', 'set-role', 'ann@acme.test', 'admin']);
    assert.deepEqual(
      [demote.code, demote.stderr.trim()],
      [1, 'svc: a workspace keeps at least one owner: make another person owner first'],
    );
    assert.equal((await run(['users', 'remove', 'ann@acme.test'])).code, 1);
    assert.equal(json(await run(['users', 'set-role', 'bob@acme.test', 'owner', '--json'])).role, 'owner');
    assert.equal(json(await run(['users', 'set-role', 'ann@acme.test', 'admin', '--json'])).role, 'admin');
    const reset = json(await run(['users', 'reset', 'ann@acme.test', '--json']));
    assert.deepEqual(Object.keys(reset), ['email', 'sign_in_url']);
    assert.notEqual(reset.sign_in_url, ann.sign_in_url);
    assert.equal((await run(['users', 'reset', 'zed@acme.test'])).code, 1);
    assert.deepEqual(json(await run(['users', 'remove', 'ann@acme.test', '--json'])), { email: 'ann@acme.test', removed: true });
    // A seat is free again.
    assert.equal(json(await run(['users', 'create', 'cy@acme.test', '--role', 'member', '--json'])).role, 'member');
    const usage = json(await run(['workspaces', 'usage', 'acme', '--json']));
    assert.deepEqual(
      usage.quotas.find((q: { kind: string }) => q.kind === 'seats'),
      { kind: 'seats', used: 2, limit: 2, window: null, resets_at: null },
    );
  });
}
