// `svc store check` follows what records say, not only whether each line reads: an inbox record
// whose message line is missing or of another length, and a send accepted twice, are reported
// (each was seen to pass a check and then fail at read or replay).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sending, settled, mail } from '../helpers/sending.js';
import { plainMail, transact } from '../helpers/mx.js';
import { checkFileStore } from '../../src/store/file/check.js';
import { startTestDaemon } from '../helpers/daemon.js';

test('store check: an inbox record without its message, and a duplicated accept line, are problems', async (t) => {
  const s = await sending(t);
  const r = await s.post(mail(['jane@rcpt.test']));
  await settled(s, r.body.id);
  assert.match(
    (await transact(s.daemon.url('mx'), 'a@elsewhere.test', ['hello@acme.test'], plainMail('a@elsewhere.test', 'hello@acme.test'))).end,
    /^250 /,
  );
  const store = s.daemon.service.deps.config.store;
  assert.equal(store.kind, 'file');
  const dir = (store as { dir: string }).dir;
  await s.daemon.close();
  assert.equal((await checkFileStore(dir)).ok, true, 'clean before');

  const day = (await readdir(join(dir, 'mail'))).find((f) => f.endsWith('.jsonl'))!;
  const mailFile = join(dir, 'mail', day);
  const accept = (await readFile(mailFile, 'utf8')).split('\n').find((l) => l.startsWith('{"t":"accept"'))!;
  await writeFile(mailFile, (await readFile(mailFile, 'utf8')) + accept + '\n');
  const inboxFile = join(dir, 'inbox', day);
  // The message's line (`~` + base64) is taken out from before its record.
  await writeFile(
    inboxFile,
    (await readFile(inboxFile, 'utf8'))
      .split('\n')
      .filter((l) => !l.startsWith('~'))
      .join('\n'),
  );

  const report = await checkFileStore(dir);
  assert.equal(report.ok, false);
  assert.deepEqual(report.problems.map((p) => p.kind).sort(), ['bad_reference', 'duplicate']);
  assert.match(report.problems.find((p) => p.kind === 'duplicate')!.reason, /accepted a second time \(first at .+ byte 0\)/);
  assert.match(report.problems.find((p) => p.kind === 'bad_reference')!.reason, /no message line before this inbox record/);

  // Read through the API, that item is a 500 that names no file of the server (the log does).
  const d = await startTestDaemon(t, { store: { kind: 'file', dir } });
  const key = await d.key('read');
  const list = (await (await fetch(`${d.api}/api/v2/inbox/items`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    data: Array<{ id: string }>;
  };
  const got = await fetch(`${d.api}/api/v2/inbox/items/${list.data[0]!.id}`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(got.status, 500);
  assert.deepEqual(await got.json(), { error: 'store data file cannot be read' });
  assert.ok(
    d.logs.some((l) => l.includes(dir)),
    'the log names the file',
  );
});
