// `svc store rekey --new-key-file FILE`: the operator's encryption key rotated on both stores. Every
// sealed value is re-encrypted at once; after it the old key is refused and the new one reads the
// DKIM keys back; a rekey given the wrong current key changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc store rekey re-encrypts every sealed value with the new key; the old key is then refused`, async (t) => {
    const dir = await tmpDir(t);
    const store = ['--store', backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${join(dir, 'store')}`];
    const k1 = randomBytes(32).toString('hex');
    const k2 = randomBytes(32).toString('hex');
    const k2File = join(dir, 'new.key');
    await writeFile(k2File, k2 + '\n', { mode: 0o600 });
    const withKey = (k: string) => ({ env: { SVC_ENCRYPTION_KEY: k } });
    json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
    json(await svc([...store, 'domains', 'add', 'one.test', '--json'], withKey(k1)));
    const before = json(await svc([...store, 'domains', 'show', 'one.test', '--json'], withKey(k1)));

    // Given the wrong current key: refused, nothing changed.
    const wrong = await svc([...store, 'store', 'rekey', '--new-key-file', k2File], withKey(randomBytes(32).toString('hex')));
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /another key/);
    assert.equal((await svc([...store, 'domains', 'list'], withKey(k1))).code, 0);

    const r = await svc([...store, 'store', 'rekey', '--new-key-file', k2File, '--json'], withKey(k1));
    assert.equal(r.code, 0, r.stderr);
    assert.ok(json(r).resealed >= 1);
    const old = await svc([...store, 'domains', 'list'], withKey(k1));
    assert.equal(old.code, 1);
    assert.match(old.stderr, /encrypted with another key/);
    const after = json(await svc([...store, 'domains', 'show', 'one.test', '--json'], withKey(k2)));
    assert.equal(after.records[3].value, before.records[3].value, 'the same DKIM key, read back with the new encryption key');
    // No new key file: wrong usage.
    assert.equal((await svc([...store, 'store', 'rekey'], withKey(k2))).code, 2);
  });
}
