// The embedded store on SQLite: the conformance suites of the groups it holds so far, the same
// suites the file store and Postgres pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { tmpDir } from '../../helpers/tmp.js';
import { isSvcError } from '../../../src/errors.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { openSqlite, DB_FILE } from '../../../src/store/sqlite/database.js';
import type { Store } from '../../../src/store/types.js';
import type { Backend } from './conformance/index.js';
import { workspacesConformance } from './conformance/workspaces.js';
import { keysConformance } from './conformance/keys.js';
import { domainsConformance } from './conformance/domains.js';
import { addressesConformance } from './conformance/addresses.js';
import { daemonsConformance } from './conformance/daemons.js';
import { suppressionsConformance } from './conformance/suppressions.js';
import { tlsConformance } from './conformance/tls.js';
import { peopleConformance } from './conformance/people.js';
import { rateLimitConformance } from './conformance/rate-limit.js';
import { messagesConformance } from './conformance/messages.js';
import { queueConformance } from './conformance/queue.js';
import { idempotencyConformance } from './conformance/idempotency.js';
import { trackingConformance } from './conformance/tracking.js';
import { inboxConformance } from './conformance/inbox.js';
import { webhooksConformance } from './conformance/webhooks.js';
import { deletionConformance } from './conformance/deletion.js';
import { listsConformance } from './conformance/lists.js';
import { campaignsConformance } from './conformance/campaigns.js';
import { sequencesConformance } from './conformance/sequences.js';
import { reopenConformance } from './conformance/reopen.js';

const sqlite: Backend<string> = {
  name: 'sqlite',
  backing: (t) => tmpDir(t),
  // A store of the groups it has: the suites below use no others.
  open: async (dir) => (await SqliteStore.open(dir, 'serve')) as unknown as Store,
};
for (const suite of [
  workspacesConformance,
  keysConformance,
  domainsConformance,
  addressesConformance,
  daemonsConformance,
  suppressionsConformance,
  tlsConformance,
  peopleConformance,
  rateLimitConformance,
  messagesConformance,
  queueConformance,
  idempotencyConformance,
  trackingConformance,
  inboxConformance,
  webhooksConformance,
  listsConformance,
  campaignsConformance,
  sequencesConformance,
  deletionConformance,
  reopenConformance,
])
  suite(sqlite);

test('sqlite: the database is in WAL mode with synchronous=FULL, foreign keys on and a busy timeout', async (t) => {
  const dir = await tmpDir(t);
  const f = openSqlite(dir);
  t.after(() => f.close());
  assert.equal(f.raw.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(f.raw.pragma('synchronous', { simple: true }), 2);
  assert.equal(f.raw.pragma('foreign_keys', { simple: true }), 1);
  assert.ok((f.raw.pragma('busy_timeout', { simple: true }) as number) > 0);
});

test('sqlite: a database written by a newer svc is refused, and left as it was', async (t) => {
  const dir = await tmpDir(t);
  (await openSqlite(dir)).close();
  const raw = new Database(join(dir, DB_FILE));
  raw.pragma('user_version = 999');
  raw.close();
  assert.throws(
    () => openSqlite(dir),
    (e) => isSvcError(e) && /newer than this svc knows/.test(e.message),
  );
  const again = new Database(join(dir, DB_FILE));
  assert.equal(again.pragma('user_version', { simple: true }), 999);
  again.close();
});
