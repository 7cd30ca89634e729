// DKIM private keys encrypted at rest in Postgres with the operator's key: a new domain's key is
// stored sealed, old plaintext keys are sealed at the first start with the key, mail is still
// signed, and once keys are sealed a process without the key (or with another) refuses to start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { svc, json, serve } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';

test(
  'DKIM keys at rest: sealed with the operator key, refused without it',
  { skip: TEST_DATABASE_URL ? false : 'no Postgres' },
  async (t) => {
    const url = await migratedSchemaUrl(t);
    const store = ['--store', url];
    const key = randomBytes(32).toString('hex');
    const keyFile = join(await tmpDir(t), 'svc.key');
    await writeFile(keyFile, key + '\n', { mode: 0o600 });
    const stored = async () => {
      const u = new URL(url);
      const schema = u.searchParams.get('schema');
      u.searchParams.delete('schema');
      if (!u.username) u.username = process.env.PGUSER || 'root';
      const c = new pg.Client({ connectionString: u.toString() });
      await c.connect();
      try {
        return (
          await c.query<{ domain: string; k: string }>(
            `SELECT domain, dkim_private_key AS k FROM ${schema ? `"${schema}".` : ''}domains ORDER BY domain`,
          )
        ).rows;
      } finally {
        await c.end();
      }
    };

    json(await svc([...store, 'workspaces', 'create', 'acme', '--plan', 'pro', '--json']));
    json(await svc([...store, 'domains', 'add', 'old.test', '--json']));
    assert.match((await stored())[0]!.k, /^-----BEGIN PRIVATE KEY-----/, 'no key given: plaintext, as before');

    // With the key (from a file): the old key is sealed at the first start, a new one is sealed.
    json(await svc([...store, '--encryption-key-file', keyFile, 'domains', 'add', 'new.test', '--json']));
    for (const r of await stored()) assert.match(r.k, /^enc:v1:[0-9a-f]{8}:/, r.domain);
    assert.doesNotMatch(JSON.stringify(await stored()), /PRIVATE KEY/);
    // The key in the environment works the same, and the domains read back whole.
    const shown = json(await svc([...store, 'domains', 'show', 'new.test', '--json'], { env: { SVC_ENCRYPTION_KEY: key } }));
    assert.match(shown.records[3].value, /^v=DKIM1; k=rsa; p=/);
    const d = await serve([...store, '--encryption-key-file', keyFile]);
    assert.equal(await d.stop(), 0);

    // Without the key, or with another one: refused, one line, exit 1.
    const without = await svc([...store, 'domains', 'list']);
    assert.equal(without.code, 1);
    assert.match(without.stderr, /the DKIM private keys in this database are encrypted: set SVC_ENCRYPTION_KEY or --encryption-key-file/);
    const other = await svc([...store, 'domains', 'list'], { env: { SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
    assert.equal(other.code, 1);
    assert.match(other.stderr, /encrypted with another key \(key id [0-9a-f]{8}, this one is [0-9a-f]{8}\)/);
    await assert.rejects(serve(store), /encrypted/);
    // A key that is not 32 bytes is wrong usage.
    assert.equal((await svc([...store, 'domains', 'list'], { env: { SVC_ENCRYPTION_KEY: 'short' } })).code, 2);
  },
);
