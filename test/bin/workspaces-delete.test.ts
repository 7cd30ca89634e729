// Through the real binary: `svc workspaces delete NAME` refuses without --yes (exit 2, nothing
// changed), then ends the workspace and removes its data (its key, its suppressions), once: a
// second delete is 1 (not found); another workspace is untouched; on the embedded store svc.db
// keeps none of its rows. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc workspaces delete`, async (t) => {
    const dir = backend === 'file' ? await tmpDir(t) : null;
    const store = dir ? `file:${dir}` : await migratedSchemaUrl(t);
    const run = (args: string[]) => svc(['--store', store, ...args]);
    const acme = json(await run(['workspaces', 'create', 'acme', '--json']));
    json(await run(['workspaces', 'create', 'beta', '--json']));
    const key = json(await run(['--workspace', 'acme', 'keys', 'create', '--json']));
    assert.equal((await run(['--workspace', 'acme', 'suppressions', 'add', 'secret-acme@rcpt.test'])).code, 0);
    assert.equal((await run(['--workspace', 'beta', 'suppressions', 'add', 'kept-beta@rcpt.test'])).code, 0);

    const asked = await run(['workspaces', 'delete', 'acme']);
    assert.equal(asked.code, 2);
    assert.match(asked.stderr, /deleting workspace acme deletes all its data .* add --yes to confirm/);
    assert.equal(json(await run(['workspaces', 'list', '--json'])).length, 2, 'nothing changed');

    const done = json(await run(['workspaces', 'delete', 'acme', '--yes', '--json']));
    assert.deepEqual(
      { ...done, records_removed: done.records_removed > 0 },
      { id: acme.id, name: 'acme', deleted: true, records_removed: true, data_removed: true },
    );
    assert.deepEqual(
      json(await run(['workspaces', 'list', '--json'])).map((w: { name: string }) => w.name),
      ['beta'],
    );
    const again = await run(['workspaces', 'delete', 'acme', '--yes']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /workspace 'acme' not found/);
    assert.ok(key.key);
    assert.deepEqual(
      json(await run(['--workspace', 'beta', 'suppressions', 'list', '--json'])).map((s: { address: string }) => s.address),
      ['kept-beta@rcpt.test'],
    );
    if (dir) {
      // svc.db holds beta's suppression only.
      const db = new Database(join(dir, 'svc.db'), { readonly: true });
      t.after(() => db.close());
      assert.deepEqual(db.prepare('SELECT address FROM suppressions').all(), [{ address: 'kept-beta@rcpt.test' }]);
    }
    // A name freed: a new workspace takes it.
    assert.equal(json(await run(['workspaces', 'create', 'acme', '--json'])).name, 'acme');
  });
}
