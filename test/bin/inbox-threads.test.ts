// Through the real binary: `svc inbox threads` lists the team inbox's threads with the team's marks
// (views, search) and `svc inbox mark` sets them; wrong usage exits 2 and changes nothing, an
// unknown thread exits 1. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';
import { openStore } from '../../src/store/open.js';
import { loadConfig, type StoreLocation } from '../../src/config.js';
import { silentLog } from '../../src/log.js';
import type { InboxItem } from '../../src/model/inbox.js';

const RAW = Buffer.from('From: jane@rcpt.test\r\nSubject: Invoice\r\n\r\nHello\r\n');

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc inbox threads and svc inbox mark`, async (t) => {
    const store = backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const run = (args: string[]) => svc(['--store', store, ...args]);
    const ws = json(await run(['workspaces', 'create', 'acme', '--plan', 'scale', '--json']));
    const thread = randomUUID();
    const s = await openStore(loadConfig({ store }, {}).store as StoreLocation, { role: 'admin', log: silentLog });
    const item: InboxItem = {
      id: randomUUID(),
      workspace_id: ws.id,
      folder: 'inbox',
      kind: 'mail',
      thread_id: thread,
      from: 'jane@rcpt.test',
      to: ['hello@acme.test'],
      cc: [],
      subject: 'Invoice',
      message_id: `${randomUUID()}@rcpt.test`,
      size: RAW.length,
      message_ref: null,
      note: null,
      created_at: new Date().toISOString(),
      in_reply_to: null,
      references: [],
      headers: 'From: jane@rcpt.test',
      text: 'Hello',
      html: null,
      envelope: null,
      raw: null,
    };
    await s.inbox.receive({ raw: RAW, items: [item], updates: [], outbox: [], events: [], suppressions: [] });
    await s.close();

    const listed = json(await run(['inbox', 'threads', '--view', 'inbox', '--json']));
    assert.deepEqual(
      listed.map((x: { thread_id: string; unread: boolean }) => [x.thread_id, x.unread]),
      [[thread, true]],
    );
    assert.equal(json(await run(['inbox', 'threads', '--search', 'INVOICE', '--json'])).length, 1);
    assert.equal(json(await run(['inbox', 'threads', '--search', 'nothing', '--json'])).length, 0);
    const bad = await run(['inbox', 'threads', '--view', 'trash']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /view must be one of all, inbox, archived/);

    const both = await run(['inbox', 'mark', thread, '--read', '--unread']);
    assert.deepEqual([both.code, both.stderr.trim()], [2, 'svc: --read and --unread go one at a time']);
    assert.equal((await run(['inbox', 'mark', thread])).code, 2);
    assert.equal((await run(['inbox', 'mark', 'no-such-thread', '--read'])).code, 1);
    const marked = json(await run(['inbox', 'mark', thread, '--read', '--archive', '--json']));
    assert.equal(marked.thread_id, thread);
    assert.equal(json(await run(['inbox', 'threads', '--view', 'inbox', '--json'])).length, 0);
    const archived = json(await run(['inbox', 'threads', '--view', 'archived', '--json']));
    assert.deepEqual(
      archived.map((x: { unread: boolean; archived: boolean }) => [x.unread, x.archived]),
      [[false, true]],
    );
    const human = await run(['inbox', 'threads', '--view', 'archived']);
    assert.match(human.stdout, /read,archived/);
  });
}
