// Destructive commands ask on a terminal, naming what will be lost (a pseudo-terminal from
// script(1), the answer typed into it); --yes skips the question; with no terminal they act at once,
// as scripts expect. Bulk commands take --dry-run: what would happen, nothing done.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { noTerminal, onTerminal } from '../helpers/terminal.js';

const skip = noTerminal;

/** `svc args` on a pseudo-terminal, `typed` written to it once it asks; its exit code and what the terminal showed. */
function asked(args: string[], typed: string) {
  let answered = false;
  return onTerminal({
    args,
    cols: 200,
    // The answer once the question is on the screen (typed earlier, a terminal may drop it).
    onScreen: (shown, keyboard) => {
      if (!answered && shown.includes('[y/N]')) {
        answered = true;
        keyboard.end(typed);
      }
    },
  });
}

test(
  'keys revoke, lists remove, domains remove ask on a terminal, naming what is lost; no is exit 1 and nothing changes',
  { skip },
  async (t) => {
    const base = ['--store', `file:${await tmpDir(t)}`, '--workspace', 'acme'];
    json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
    const key = json(await svc([...base, 'keys', 'create', '--name', 'ci', '--json']));
    const no = await asked([...base, 'keys', 'revoke', key.id], 'n\n');
    assert.equal(no.code, 1, no.out);
    assert.match(no.out, new RegExp(`Revoke key 'ci' \\(${key.prefix}…, send,read\\)\\? .*cannot be restored\\. \\[y/N\\]`));
    assert.match(no.out, /svc: cancelled: nothing was changed/);
    assert.equal(json(await svc([...base, 'keys', 'list', '--json']))[0].revoked_at, null);
    const yes = await asked([...base, 'keys', 'revoke', key.id], 'y\n');
    assert.equal(yes.code, 0, yes.out);
    assert.notEqual(json(await svc([...base, 'keys', 'list', '--json']))[0].revoked_at, null);

    const list = json(await svc([...base, 'lists', 'create', 'News', '--json']));
    const kept = await asked([...base, 'lists', 'remove', list.id], '\n');
    assert.equal(kept.code, 1, 'Enter is no');
    assert.match(kept.out, /Delete the list 'News' and its 0 subscriber\(s\)\? This cannot be undone\./);
    // --yes: no question, even on a terminal.
    const forced = await asked([...base, 'lists', 'remove', list.id, '--yes'], '');
    assert.equal(forced.code, 0, forced.out);
    assert.doesNotMatch(forced.out, /\[y\/N\]/);

    json(await svc([...base, 'domains', 'add', 'acme.test', '--json']));
    const domain = await asked([...base, 'domains', 'remove', 'acme.test'], 'no\n');
    assert.equal(domain.code, 1);
    assert.match(domain.out, /Remove acme\.test\? Its DKIM key is deleted for good/);
    assert.equal(json(await svc([...base, 'domains', 'list', '--json'])).length, 1);
  },
);

test('with no terminal a destructive command acts at once (scripts keep working)', async (t) => {
  const base = ['--store', `file:${await tmpDir(t)}`, '--workspace', 'acme'];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const key = json(await svc([...base, 'keys', 'create', '--json']));
  const r = await svc([...base, 'keys', 'revoke', key.id]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /\[y\/N\]/);
});

test('subscribers import --dry-run reads and checks every row, writes nothing, says what would happen', async (t) => {
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`, '--workspace', 'acme'];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--plan', 'scale', '--json']));
  const list = json(await svc([...base, 'lists', 'create', 'News', '--json']));
  json(await svc([...base, 'subscribers', 'add', list.id, 'old@rcpt.test', '--json']));
  const csv = join(dir, 'in.csv');
  await writeFile(csv, 'email\nold@rcpt.test\nnew@rcpt.test\nnot-an-email\n');
  const dry = json(await svc([...base, 'subscribers', 'import', list.id, csv, '--dry-run', '--json']));
  assert.deepEqual(dry, {
    imported: 2,
    skipped: 1,
    errors: [{ line: 4, email: 'not-an-email', error: 'invalid email: expected local@domain' }],
    dry_run: true,
    new_contacts: 1,
  });
  assert.equal(json(await svc([...base, 'lists', 'show', list.id, '--json'])).subscriber_count, 1, 'nothing written');
  const human = await svc([...base, 'subscribers', 'import', list.id, csv, '--dry-run']);
  assert.match(human.stdout, /^would import 2 \(1 new to the workspace\), skip 1; --dry-run: nothing was written$/m);
  const real = json(await svc([...base, 'subscribers', 'import', list.id, csv, '--json']));
  assert.equal(real.imported, 2);
  assert.equal(json(await svc([...base, 'lists', 'show', list.id, '--json'])).subscriber_count, 2);
});

test('webhooks replay --failed --dry-run lists what would be sent and sends nothing', async (t) => {
  const base = ['--store', `file:${await tmpDir(t)}`, '--workspace', 'acme'];
  json(await svc([...base, 'workspaces', 'create', 'acme', '--json']));
  const none = await svc([...base, 'webhooks', 'replay', '--failed', '--since', '1h', '--dry-run']);
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /0 event\(s\) would be sent again \(--dry-run: nothing was sent\)/);
  assert.deepEqual(json(await svc([...base, 'webhooks', 'replay', '--failed', '--since', '1h', '--dry-run', '--json'])), []);
  const mixed = await svc([...base, 'webhooks', 'replay', 'some-id', '--dry-run']);
  assert.equal(mixed.code, 2);
});
