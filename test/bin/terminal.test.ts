// Escape sequences from outside never reach an operator's terminal: a subject, a Cc and a body
// carrying OSC 52 (clipboard), OSC 0 (title), ESC[2J and a C1 CSI (U+009B), and a remote server's
// refusal carrying the same, printed by every command that shows them, piped; --json escapes C0
// and C1 controls and still parses to the same values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { svc, json, serve, cliSender, postEmail } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { transact } from '../helpers/mx.js';

const EVIL = '\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\u009b31m';
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

test('svc inbox list/show, messages list/show/explain, suppressions list: control characters from outside are made visible; --json escapes them', async (t) => {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  s.refuse('gone@rcpt.test', 550, `5.1.1 no such user ${EVIL}`);
  const dir = await tmpDir(t);
  const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
  const key = await cliSender(base, dns);
  const d = await serve([...base, '--direct-port', String(s.port)], { listeners: ['api', 'mx'] });
  t.after(() => d.stop('SIGKILL'));

  const message = Buffer.from(
    [
      `From: someone@elsewhere.test`,
      `To: hello@acme.test`,
      `Cc: "x${EVIL}" <cc@elsewhere.test>`,
      `Subject: Invoice ${EVIL} due`,
      `Message-ID: <evil@elsewhere.test>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Body ${EVIL} end`,
    ].join('\r\n'),
    'utf8',
  );
  assert.match((await transact(d.urls.mx!, 'someone@elsewhere.test', ['hello@acme.test'], message)).end, /^250 /);
  const sent = await postEmail(d, key, 'gone@rcpt.test', 'to be refused');
  assert.equal(sent.status, 202);
  const { id } = sent.body;
  for (let i = 0; i < 200; i++) {
    const m = json(await svc([...base, 'messages', 'show', id, '--json']));
    if (m.status === 'bounced') break;
    await new Promise((r) => setTimeout(r, 50));
  }

  const items = json(await svc([...base, 'inbox', 'list', '--json']));
  const item = items.find((i: { subject: string }) => i.subject.includes('Invoice'));
  assert.ok(item, 'the item is listed');
  // --json: the same values once parsed, and no raw control byte in the document.
  assert.equal(item.subject, `Invoice ${EVIL} due`);
  for (const args of [
    ['inbox', 'list'],
    ['inbox', 'list', '--json'],
    ['inbox', 'show', item.id],
    ['inbox', 'show', item.id, '--json'],
    ['messages', 'list'],
    ['messages', 'show', id],
    ['messages', 'show', id, '--json'],
    ['messages', 'explain', id],
    ['suppressions', 'list'],
    ['suppressions', 'list', '--json'],
  ]) {
    const r = await svc([...base, ...args]);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.doesNotMatch(r.stdout.replace(/\n/g, ''), RAW_CONTROL, `svc ${args.join(' ')} printed a raw control character`);
    assert.doesNotMatch(r.stderr.replace(/\n/g, ''), RAW_CONTROL, `svc ${args.join(' ')} printed a raw control character on stderr`);
  }
  const shown = await svc([...base, 'inbox', 'show', item.id]);
  assert.match(shown.stdout, /Invoice \^\[\]52;c;cm0gLXJmIH4=\^G\^\[\]0;pwned\^G\^\[\[2J\\x9b31m due/);
  assert.match(shown.stdout, /Body \^\[\]52/);
  // (The remote refusal's controls were already dropped on the way in; nothing raw either way.)
  assert.match((await svc([...base, 'messages', 'show', id])).stdout, /no such user/);
});
