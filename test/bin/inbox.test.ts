// The inbox from the real binary: the MX's ready line, mail acknowledged with 250 and the daemon
// killed with SIGKILL right after: the item is there on restart (`svc inbox list`, `show`); the
// Sent copies of REST and relay mail; `svc inbox watch` printing plain lines off a terminal. Both
// backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import nodemailer from 'nodemailer';
import { SVC, svc, json, serve, cliSender } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { plainMail, transact } from '../helpers/mx.js';
import { TEST_DATABASE_URL, migratedSchemaUrl } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: svc inbox: an item acknowledged before a SIGKILL is there after it; Sent copies of REST and relay mail; watch prints plain lines`, async (t) => {
    const dns = await fixtureDns(t);
    const s = await sink(t);
    const store = backend === 'postgres' ? await migratedSchemaUrl(t) : `file:${await tmpDir(t)}`;
    const base = ['--store', store, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const flags = [...base, '--direct-port', String(s.port)];

    const d1 = await serve(flags, { listeners: ['api', 'relay', 'mx'] });
    t.after(() => d1.stop('SIGKILL'));
    assert.match(d1.stdout(), /^svc: mx listening on smtp:\/\/127\.0\.0\.1:\d+$/m);
    const sentMessage = plainMail('someone@elsewhere.test', 'hello@acme.test', 'Before the crash');
    const r = await transact(d1.urls.mx!, 'someone@elsewhere.test', ['hello@acme.test'], sentMessage);
    assert.match(r.end, /^250 /);
    await d1.stop('SIGKILL');

    const list = json(await svc([...base, 'inbox', 'list', '--json']));
    assert.equal(list.length, 1);
    assert.deepEqual(
      { kind: list[0].kind, folder: list[0].folder, subject: list[0].subject, from: list[0].from },
      { kind: 'mail', folder: 'inbox', subject: 'Before the crash', from: 'someone@elsewhere.test' },
    );
    const shown = await svc([...base, 'inbox', 'show', list[0].id]);
    assert.equal(shown.code, 0);
    assert.match(shown.stdout, /Hello there\./);
    assert.match(shown.stdout, /sender +NOT AUTHENTICATED: nothing authenticates elsewhere\.test/);
    // --raw: only the stored message, byte for byte: the MX's trace fields, then the message as sent.
    const raw = await svc([...base, 'inbox', 'show', list[0].id, '--raw']);
    assert.equal(raw.code, 0);
    assert.match(
      raw.stdout,
      /^Received: from sender\.test \([^)]*\[127\.0\.0\.1\]\)\r\n\tby mx\.svc\.localhost \(svc\) with ESMTP id [^\r]+\r\n\tfor <hello@acme\.test>;\r\n\t[^\r]+\r\nAuthentication-Results: mx\.svc\.localhost;\r\n/,
    );
    assert.ok(raw.stdout.endsWith(sentMessage), 'the message as received follows the trace fields unchanged');
    assert.equal(raw.stdout.indexOf('From: someone@elsewhere.test'), raw.stdout.length - sentMessage.length);
    assert.equal((await svc([...base, 'inbox', 'show', '00000000-0000-4000-8000-000000000000'])).code, 1);
    assert.equal((await svc([...base, 'inbox', 'list', '--folder', 'trash'])).code, 2);
    assert.equal(json(await svc([...base, 'inbox', 'list', '--kind', 'mail', '--json'])).length, 1);
    assert.deepEqual(json(await svc([...base, 'inbox', 'list', '--kind', 'bounce', '--json'])), []);
    const badKind = await svc([...base, 'inbox', 'list', '--kind', 'spam']);
    assert.equal(badKind.code, 2);
    assert.match(badKind.stderr, /kind must be one of mail, reply, auto_reply, bounce, complaint, sent/);

    // After the restart: a REST send and a relayed one each get their Sent copy.
    const d2 = await serve(flags, { listeners: ['api', 'relay', 'mx'] });
    t.after(() => d2.stop('SIGKILL'));
    const rest = await fetch(`${d2.urls.api}/api/v2/emails`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'By REST', body_html: '<p>Hi <b>Jane</b></p>' }),
    });
    assert.equal(rest.status, 202);
    const relayUrl = new URL(d2.urls.relay!);
    const transport = nodemailer.createTransport({
      host: relayUrl.hostname,
      port: Number(relayUrl.port),
      secure: false,
      auth: { user: 'x', pass: key },
      tls: { rejectUnauthorized: false },
    });
    await transport.sendMail({ from: 'hello@acme.test', to: 'bob@rcpt.test', subject: 'By relay', text: 'Hi Bob' });
    transport.close();
    const sent = json(await svc([...base, 'inbox', 'list', '--folder', 'sent', '--json']));
    assert.deepEqual(
      sent.map((i: { subject: string }) => i.subject),
      ['By relay', 'By REST'],
    );
    assert.deepEqual(
      sent.map((i: { kind: string }) => i.kind),
      ['sent', 'sent'],
    );
    const restCopy = json(await svc([...base, 'inbox', 'show', sent[1].id, '--json']));
    assert.equal(restCopy.html, '<p>Hi <b>Jane</b></p>');
    assert.match(restCopy.headers, /^From: <hello@acme\.test>/m);

    // watch: off a terminal, one plain line per new item, from the bus (or its fallback).
    const watch = spawn(process.execPath, [SVC, ...base, 'inbox', 'watch'], { stdio: ['ignore', 'pipe', 'pipe'] });
    t.after(() => watch.kill('SIGKILL'));
    const lines: string[] = [];
    createInterface({ input: watch.stdout }).on('line', (l) => lines.push(l));
    // It says on stderr when it has begun: from then on what arrives is shown.
    await new Promise<void>((res) =>
      createInterface({ input: watch.stderr }).on('line', (l) => /watching the team inbox/.test(l) && res()),
    );
    assert.match(
      (await transact(d2.urls.mx!, 'jane@rcpt.test', ['hello@acme.test'], plainMail('jane@rcpt.test', 'hello@acme.test', 'Watched'))).end,
      /^250 /,
    );
    for (let i = 0; i < 100 && !lines.length; i++) await new Promise((res) => setTimeout(res, 50));
    assert.equal(lines.length, 1, 'only what arrived after watching began');
    assert.match(lines[0]!, / mail +jane@rcpt\.test "Watched" /);
    watch.kill('SIGINT');
    assert.equal(await new Promise((res) => watch.once('exit', (code) => res(code))), 130, 'Ctrl-C: 130');

    // delete: beside the running daemon (over its admin socket); an unknown id exits 1, a Sent copy 2.
    const watched = json(await svc([...base, 'inbox', 'list', '--json']))[0];
    assert.equal(watched.subject, 'Watched');
    const deleted = await svc([...base, 'inbox', 'delete', watched.id]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(deleted.stdout.trim(), `deleted ${watched.id}`);
    assert.deepEqual(
      json(await svc([...base, 'inbox', 'list', '--json'])).map((i: { subject: string }) => i.subject),
      ['Before the crash'],
    );
    assert.equal((await svc([...base, 'inbox', 'delete', watched.id])).code, 1);
    assert.equal((await svc([...base, 'inbox', 'delete', sent[0].id])).code, 2);
    assert.equal(await d2.stop(), 0);
    assert.deepEqual(
      json(await svc([...base, 'inbox', 'list', '--json'])).map((i: { subject: string }) => i.subject),
      ['Before the crash'],
    );
  });
}
