// The admin socket carries every store operation between a command and the daemon that owns a file
// store, Buffers included: a received message stored over it is read back byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { RemoteStore } from '../../../../src/store/file/remote-store.js';
import { socketPath } from '../../../../src/store/file/admin-protocol.js';
import { startTestDaemon } from '../../../helpers/daemon.js';
import { ws } from '../conformance/fixtures.js';

test('file store: a Buffer argument crosses the admin socket as bytes', { timeout: 60_000 }, async (t) => {
  const d = await startTestDaemon(t, { deliver: false });
  const dir = d.daemon.service.store.describe.replace(/^file:/, '');
  const remote = await RemoteStore.connect(socketPath(dir));
  t.after(() => remote.close());
  const w = await remote.workspaces.create(ws('acme'));
  // Every byte value, a CR/LF and a NUL among them.
  const raw = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
  const id = randomUUID();
  await remote.inbox.receive({
    raw,
    items: [
      {
        id,
        workspace_id: w.id,
        folder: 'inbox',
        kind: 'mail',
        thread_id: id,
        from: 'jane@rcpt.test',
        to: ['hello@acme.test'],
        cc: [],
        subject: 'bytes',
        message_id: null,
        size: raw.length,
        message_ref: null,
        note: null,
        created_at: new Date().toISOString(),
        in_reply_to: null,
        references: [],
        headers: '',
        text: null,
        html: null,
        envelope: { mail_from: 'jane@rcpt.test', rcpt_to: ['hello@acme.test'], remote_ip: null },
        raw: null,
      },
    ],
    updates: [],
    outbox: [],
    events: [],
    suppressions: [],
  });
  const item = await d.daemon.service.store.inbox.get(w.id, id);
  assert.deepEqual(Buffer.from(item!.raw!, 'base64'), raw);
  assert.equal((await remote.inbox.get(w.id, id))!.raw, raw.toString('base64'));
});
