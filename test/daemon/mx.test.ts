// The inbound MX over real SMTP sessions, on both backends: who it takes mail for (and that it is
// never a relay), replies threaded and counted, automatic replies kept but never counted, bounce
// reports that bounce a sent message, that only wait, or that match nothing, complaints, and the
// Sent copies of REST and relay mail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { sending, settled } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { arf, dsn, plainMail, replyTo, transact } from '../helpers/mx.js';
import { plain, RawSmtp } from '../helpers/smtp-client.js';
import { startTestDaemon } from '../helpers/daemon.js';
import nodemailer from 'nodemailer';
import { returnPath } from '../../src/mail/return-path.js';

/** The return path svc gave one recipient's copy. */
const rp = (m: { id: string }) => returnPath(m.id, 'hello@acme.test');

const backends = ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])];

async function daemon(t: { after(fn: () => unknown): void }, backend: string, env: Record<string, string> = {}) {
  const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
  const s = await sending(t, { ...(pgUrl ? { store: pgLocation(pgUrl) } : {}), env });
  return { s, mx: s.daemon.url('mx'), service: s.daemon.service };
}

/** Sends one HTML message to `to` through the API and waits for it to be handed off; its record and the copy the sink got. */
async function sent(s: Awaited<ReturnType<typeof daemon>>['s'], to: string) {
  const before = s.sink.received.length;
  const r = await s.post({ from: 'hello@acme.test', to: [to], subject: 'Hello', body_html: '<p>Hello</p>' });
  assert.equal(r.status, 202);
  const m = await settled(s, r.body.id);
  assert.equal(m.status, 'sent');
  await s.sink.waitFor(before + 1);
  return { m, copy: s.sink.received.find((x) => x.to[0] === to)! };
}

for (const backend of backends) {
  test(`${backend}: MX: RCPT rules, no relay, STARTTLS, no AUTH; a reply threaded and counted; an out-of-office kept, not counted; other mail`, async (t) => {
    const { s, mx, service } = await daemon(t, backend);
    const { m, copy } = await sent(s, 'jane@rcpt.test');
    assert.equal(copy.from, rp(m));
    assert.match(copy.from, /^bounces\+[0-9a-f]{32}@acme\.test$/);

    const { client, greeting } = await RawSmtp.open(mx);
    t.after(() => client.destroy());
    assert.match(greeting.join('\n'), /^220 /);
    const ehlo = await client.cmd('EHLO sender.test');
    assert.match(ehlo, /STARTTLS/);
    assert.doesNotMatch(ehlo, /AUTH/);
    assert.match(await client.cmd(`AUTH PLAIN ${plain(s.key)}`), /^502 /);
    assert.match(await client.cmd('MAIL FROM:<>'), /^250/);
    assert.match(await client.cmd('RCPT TO:<nobody@acme.test>'), /^550 5\.1\.1/);
    assert.match(await client.cmd('RCPT TO:<someone@elsewhere.test>'), /^550 5\.7\.1/);
    assert.match(await client.cmd('RCPT TO:<jane@rcpt.test>'), /^550 5\.7\.1/, 'never a relay, not even to a recipient of ours');
    assert.match(await client.cmd('RCPT TO:<bounces+00000000-0000-4000-8000-000000000000@acme.test>'), /^550 5\.1\.1/);
    assert.match(
      await client.cmd(`RCPT TO:<${rp(m).replace('acme.test', 'good.test')}>`),
      /^550 5\.1\.1/,
      'a return path on another domain than its message',
    );
    assert.match(await client.cmd('RCPT TO:<HELLO@acme.test>'), /^250/);
    assert.match(await client.cmd(`RCPT TO:<${rp(m).toUpperCase()}>`), /^250/, 'a relay may change the case');
    assert.match(
      await client.cmd(`RCPT TO:<bounces+${m.id}@acme.test>`),
      /^550 5\.1\.1/,
      'no other form than the per-recipient one (a dashed id names no one recipient)',
    );
    // postmaster@ and abuse@ of every verified domain, registered or not (RFC 5321 §4.5.1).
    assert.match(await client.cmd('RCPT TO:<postmaster@acme.test>'), /^250/);
    assert.match(await client.cmd('RCPT TO:<Abuse@acme.test>'), /^250/);
    assert.match(await client.cmd('RCPT TO:<postmaster@elsewhere.test>'), /^550 5\.7\.1/);
    assert.match(await client.cmd('RSET'), /^250/);
    // The relay's limits: 25 MB (SIZE= refused at MAIL FROM), 1,000 recipients.
    assert.match(await client.cmd('MAIL FROM:<a@elsewhere.test> SIZE=26214401'), /^552 5\.3\.4/);
    assert.match(await client.cmd('MAIL FROM:<a@elsewhere.test> SIZE=1000'), /^250/);
    const taken = Array.from({ length: 1000 }, () => client.reply());
    client.write('RCPT TO:<hello@acme.test>\r\n'.repeat(1000));
    for (const r of await Promise.all(taken)) assert.match(r.join('\n'), /^250/);
    assert.match(await client.cmd('RCPT TO:<hello@acme.test>'), /^452 4\.5\.3/);
    assert.match(await client.cmd('RSET'), /^250/);
    assert.match(await client.starttls(), /^220/);
    assert.ok(client.secure);
    assert.match(await client.cmd('EHLO sender.test'), /^250/);
    assert.match(await client.cmd('QUIT'), /^221/);
    // A client that speaks before the greeting is closed with a reply of the table, enhanced code included.
    const early = await new Promise<string>((resolve) => {
      let got = '';
      const sock = connect(Number(new URL(mx).port), '127.0.0.1', () => sock.write('EHLO early.test\r\n'));
      sock.on('data', (d) => (got += d.toString()));
      sock.on('close', () => resolve(got));
      sock.on('error', () => {});
    });
    assert.equal(early, '421 4.5.0 Protocol error: a command came before the greeting, closing connection\r\n');

    // Jane replies: 250 once stored; threaded with the Sent copy; counted on her record.
    const r = await transact(mx, 'jane@rcpt.test', ['hello@acme.test'], replyTo('jane@rcpt.test', 'hello@acme.test', m.message_id));
    assert.match(r.end, /^250 2\.0\.0 OK: queued/);
    const after = (await s.get(`/api/v2/messages/${m.id}`)).body;
    assert.equal(after.reply_count, 1);
    assert.ok(after.replied_at);
    assert.equal(after.engagement_score, 10);
    assert.equal(after.status, 'sent');
    const events = (await s.get(`/api/v2/messages/${m.id}/events`)).body.data;
    assert.deepEqual(
      events.map((e: { kind: string }) => e.kind),
      ['reply'],
    );
    const inbox = await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 10, offset: 0 });
    assert.equal(inbox.data[0]!.kind, 'reply');
    assert.equal(inbox.data[0]!.message_ref, m.id);
    const sentCopies = await service.store.inbox.list(s.ws.id, { folder: 'sent', limit: 10, offset: 0 });
    assert.equal(inbox.data[0]!.thread_id, sentCopies.data[0]!.thread_id, "the reply is in the Sent copy's thread");

    // An out-of-office to the same message: kept as auto_reply, never counted.
    const ooo = await transact(
      mx,
      'jane@rcpt.test',
      ['hello@acme.test'],
      replyTo('jane@rcpt.test', 'hello@acme.test', m.message_id, ['Auto-Submitted: auto-replied']),
    );
    assert.match(ooo.end, /^250/);
    const vacation = await transact(
      mx,
      'jane@rcpt.test',
      ['hello@acme.test'],
      replyTo('jane@rcpt.test', 'hello@acme.test', m.message_id).replace('Subject: Re: Hello', 'Subject: Out of Office: Re: Hello'),
    );
    assert.match(vacation.end, /^250/);
    // A responder that answers the envelope sender, without In-Reply-To: the return path names the message.
    const away = plainMail('jane@rcpt.test', rp(m), 'Away').replace('Subject: Away', 'Subject: Away\r\nAuto-Submitted: auto-replied');
    assert.match((await transact(mx, '', [rp(m)], away)).end, /^250/);
    const awayItem = (await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 1, offset: 0 })).data[0]!;
    assert.deepEqual(
      { kind: awayItem.kind, ref: awayItem.message_ref, thread: awayItem.thread_id },
      { kind: 'auto_reply', ref: m.id, thread: inbox.data[0]!.thread_id },
    );
    assert.equal((await s.get(`/api/v2/messages/${m.id}`)).body.reply_count, 1);
    // Anything else for a registered address is mail; nodemailer over STARTTLS, as another server would.
    assert.match(
      (await transact(mx, 'someone@elsewhere.test', ['hello@acme.test'], plainMail('someone@elsewhere.test', 'hello@acme.test'))).end,
      /^250/,
    );
    const u = new URL(mx);
    const transport = nodemailer.createTransport({
      host: u.hostname,
      port: Number(u.port),
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
    });
    const info = await transport.sendMail({
      from: 'Ann <ann@elsewhere.test>',
      to: 'hello@acme.test',
      subject: 'Über TLS',
      text: 'Hallo',
      html: '<p>Hallo</p>',
    });
    transport.close();
    assert.match(info.response, /^250 2\.0\.0 OK: queued/);
    const items = (await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 10, offset: 0 })).data;
    assert.deepEqual(
      items.map((i) => i.kind),
      ['mail', 'mail', 'auto_reply', 'auto_reply', 'auto_reply', 'reply'],
    );
    assert.deepEqual({ from: items[0]!.from, subject: items[0]!.subject }, { from: 'ann@elsewhere.test', subject: 'Über TLS' });
    const viewed = await service.inbox.get(s.ws, items[0]!.id);
    assert.deepEqual({ text: viewed.text?.trim(), html: viewed.html?.trim() }, { text: 'Hallo', html: '<p>Hallo</p>' });
  });

  test(`${backend}: MX: a bounce report after sent bounces and suppresses once; a delay only notes; an unmatched one changes nothing; a complaint suppresses`, async (t) => {
    const { s, mx, service } = await daemon(t, backend);
    const { m: jane } = await sent(s, 'jane@rcpt.test');
    const { m: bob } = await sent(s, 'bob@rcpt.test');
    const { m: carol } = await sent(s, 'carol@rcpt.test');

    // A delay: on the timeline only.
    const delayed = await transact(mx, '', [rp(bob)], dsn('bob@rcpt.test', bob.message_id, 'delayed', '4.4.7', '421 try again later'));
    assert.match(delayed.end, /^250/);
    assert.equal((await s.get(`/api/v2/messages/${bob.id}`)).body.status, 'sent');
    const about = await service.store.inbox.about(s.ws.id, bob.id);
    assert.equal(about.length, 1);
    assert.match(about[0]!.note!, /delayed 4\.4\.7/);

    // Failed, after sent: bounced with the report's words, suppressed, message.bounced once.
    for (let i = 0; i < 2; i++) {
      const r = await transact(
        mx,
        '',
        [rp(bob)],
        dsn('bob@rcpt.test', bob.message_id, 'failed', '5.1.1', '550 5.1.1 <bob@rcpt.test>: user unknown'),
      );
      assert.match(r.end, /^250/);
    }
    const b = (await s.get(`/api/v2/messages/${bob.id}`)).body;
    assert.equal(b.status, 'bounced');
    assert.match(b.error, /5\.1\.1/);
    assert.ok(b.bounced_at);
    const sup = await service.store.suppressions.find(s.ws.id, ['bob@rcpt.test']);
    assert.equal(sup[0]?.reason, 'bounce');
    assert.equal(sup[0]?.message_id, bob.id);
    // Bob's timeline tells the delay and the failure the MX received.
    const timeline = (await service.explain(s.ws, bob.id)).timeline.filter((e) => e.stage.startsWith('received ')).map((e) => e.detail);
    assert.equal(timeline.length, 3);
    assert.match(timeline[0]!, /delayed 4\.4\.7/);
    assert.match(timeline[1]!, /failed 5\.1\.1, suppressed/);

    // A report whose returned Message-ID is another message's: nothing changes.
    await transact(mx, '', [rp(jane)], dsn('jane@rcpt.test', 'someone-else@acme.test', 'failed', '5.1.1', 'user unknown'));
    // One sent to a registered address, without a return path: matches nothing of ours.
    await transact(mx, '', ['hello@acme.test'], dsn('jane@rcpt.test', jane.message_id, 'failed', '5.1.1', 'user unknown'));
    assert.equal((await s.get(`/api/v2/messages/${jane.id}`)).body.status, 'sent');
    assert.deepEqual(await service.store.suppressions.find(s.ws.id, ['jane@rcpt.test']), []);

    // A complaint sent to a team-inbox address (no feedback loop configured): kept as mail, nothing changed.
    await transact(mx, 'feedback@isp.test', ['hello@acme.test'], arf('carol@rcpt.test', carol.message_id));
    assert.deepEqual(await service.store.suppressions.find(s.ws.id, ['carol@rcpt.test']), []);
    // A feedback-loop complaint about Carol's copy at its return path: suppressed (reason complaint); no webhook event for it.
    await transact(mx, 'feedback@isp.test', [rp(carol)], arf('carol@rcpt.test', carol.message_id));
    assert.equal((await service.store.suppressions.find(s.ws.id, ['carol@rcpt.test']))[0]?.reason, 'complaint');
    assert.equal((await s.get(`/api/v2/messages/${carol.id}`)).body.status, 'sent');
    const kinds = (await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 10, offset: 0 })).data.map((i) => i.kind);
    assert.deepEqual(kinds, ['complaint', 'mail', 'bounce', 'bounce', 'bounce', 'bounce', 'auto_reply']);
  });
}

/** A message of `n` empty parts; one nested `depth` deep; one whose header block is `bytes` long. */
const manyParts = (n: number) =>
  `From: a@elsewhere.test\r\nSubject: parts\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${Array.from({ length: n }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join('')}--b--\r\n`;
const nested = (depth: number) => {
  let body = 'Content-Type: text/plain\r\n\r\ndeep\r\n';
  for (let i = 0; i < depth; i++) body = `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n${body}--n${i}--\r\n`;
  return `From: a@elsewhere.test\r\nSubject: nested\r\n${body}`;
};
/** A message/rfc822 (type written in capitals) wrapping a multipart of `n` parts: the bomb that skipped the part count. */
const wrappedParts = (n: number) => `From: a@elsewhere.test\r\nSubject: wrapped\r\nContent-Type: MESSAGE/RFC822\r\n\r\n${manyParts(n)}`;
/** Nested `depth` deep with its boundaries declared in capitals (BOUNDARY=). */
const nestedCapitals = (depth: number) =>
  nested(depth)
    .replace(/boundary=/g, 'BOUNDARY=')
    .replace(/multipart\/mixed/g, 'Multipart/Mixed');
const bigHeaders = (bytes: number) =>
  `From: a@elsewhere.test\r\nSubject: headers\r\n${Array.from({ length: Math.ceil(bytes / 100) }, (_, i) => `X-F${String(i).padStart(6, '0')}: ${'x'.repeat(88)}`).join('\r\n')}\r\n\r\nbody\r\n`;

for (const backend of backends) {
  test(`${backend}: MX: hostile messages (2,000 parts, 200 deep, the same in capitals, 20,000 parts inside a message/rfc822, a 2 MB header block) are kept raw and marked; the MX keeps answering`, async (t) => {
    const { s, mx, service } = await daemon(t, backend);
    for (const message of [wrappedParts(20_000), nestedCapitals(200), manyParts(2000), nested(200), bigHeaders(2 * 1024 * 1024)]) {
      const r = await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], message);
      assert.match(r.end, /^250 /);
    }
    const items = (await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 10, offset: 0 })).data;
    assert.equal(items.length, 5);
    for (const i of items) assert.match(i.note ?? '', /kept as received/);
    // Reading the bomb never parses it (it was the read that took 37 s and 5 GB).
    const bomb = items.find((i) => i.subject === 'wrapped')!;
    assert.match(bomb.note!, /more than 500 MIME parts/);
    const read = await service.inbox.get(s.ws, bomb.id);
    assert.equal(read.text, null);
    const raw = await service.store.inbox.get(s.ws.id, items[0]!.id);
    assert.ok(Buffer.from(raw!.raw!, 'base64').length > 2 * 1024 * 1024, 'the whole message is kept');
    assert.ok(raw!.headers.length <= 64 * 1024, 'the header block svc reads is bounded');
    // Still answering, and ordinary mail still parsed.
    assert.match(
      (await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], plainMail('a@elsewhere.test', 'hello@acme.test'))).end,
      /^250 /,
    );
    assert.equal((await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 1, offset: 0 })).data[0]!.note, null);
  });

  test(`${backend}: MX: over the storage quota mail is deferred with 452 4.2.2 at RCPT or DATA, and taken again once there is room; workspaces apart`, async (t) => {
    const { s, mx, service } = await daemon(t, backend, { SVC_STORAGE_LIMIT: '12kb' });
    // Another workspace with its own domain and address: its mail never lands in acme's inbox.
    const other = await service.workspaces.create('other', 'scale');
    const d = await service.domains.add(other, 'good.test');
    const { publish } = await import('../helpers/domains.js');
    publish(s.dns, 'good.test', d.records);
    assert.ok((await service.domains.verify(other, 'good.test')).passed);
    await service.addresses.add(other, 'team@good.test');

    const big = plainMail('a@elsewhere.test', 'hello@acme.test', 'Big') + 'x'.repeat(2000) + '\r\n';
    assert.match((await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], big)).end, /^250 /);
    // What is kept is the message with the MX's trace fields before it; under 4 KB, it counts 4 KB.
    const size = (await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 1, offset: 0 })).data[0]!.size;
    const trace = size - Buffer.byteLength(big);
    assert.ok(trace > 100 && trace < 1000, `trace fields of ${trace} bytes`);
    assert.equal(await service.store.inbox.usage(s.ws.id), 4096);
    // Would pass 12 KB with this one: refused at DATA, nothing stored.
    const huge = plainMail('a@elsewhere.test', 'hello@acme.test', 'Huge') + 'z'.repeat(9000) + '\r\n';
    const atData = await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], huge);
    assert.match(atData.end, /^452 4\.2\.2/);
    // One that fills it exactly still fits; then the workspace is full: refused at RCPT.
    const head = plainMail('a@elsewhere.test', 'hello@acme.test', 'Small');
    const small = head + 'y'.repeat(8 * 1024 - trace - head.length - 2) + '\r\n';
    assert.match((await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], small)).end, /^250 /);
    assert.equal(await service.store.inbox.usage(s.ws.id), 12 * 1024);
    const atRcpt = await transact(mx, 'a@elsewhere.test', ['hello@acme.test', 'team@good.test'], small);
    assert.match(atRcpt.rcpts[0]!, /^452 4\.2\.2/);
    assert.match(atRcpt.rcpts[1]!, /^250/);
    assert.match(atRcpt.end, /^250 /);
    assert.deepEqual(
      (await service.store.inbox.list(other.id, { folder: 'inbox', limit: 10, offset: 0 })).data.map((i) => i.to),
      [['team@good.test']],
    );
    const kept = await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 10, offset: 0 });
    assert.equal(kept.total, 2);
    // Room again after a delete: the small one is taken, and the workspace is full again.
    await service.inbox.remove(s.ws, kept.data.find((i) => i.subject === 'Small')!.id);
    assert.match((await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], small)).end, /^250 /);
    assert.match((await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], small)).rcpts[0]!, /^452 4\.2\.2/);
    // Room again (retention removed the old mail): taken.
    assert.equal(await service.store.inbox.purge(new Date(Date.now() + 2 * 86_400_000).toISOString()), 3);
    assert.match((await transact(mx, 'a@elsewhere.test', ['hello@acme.test'], big)).end, /^250 /);
  });
}

test('MX: a session still open when the daemon stops gets 421 4.3.2 from the reply table after the grace, and the stop completes', async (t) => {
  const d = await startTestDaemon(t, { deliver: false });
  const { client, greeting } = await RawSmtp.open(d.daemon.url('mx'));
  t.after(() => client.destroy());
  assert.match(greeting.join('\n'), /^220 /);
  assert.match(await client.cmd('EHLO sender.test'), /^250/);
  const reply = client.reply();
  const stopping = d.daemon.close();
  assert.deepEqual(await reply, ['421 4.3.2 Service shutting down, try again later']);
  await stopping;
});

test('MX rates: past its messages a minute a sender gets 451 4.7.1 at MAIL FROM (the null sender counted per client IP), a workspace past its own gets 451 4.7.1 at RCPT; others are still taken', async (t) => {
  const { s, mx, service } = await daemon(t, 'file', { SVC_MX_RATE_PER_SENDER: '3', SVC_MX_RATE_PER_WORKSPACE: '5' });
  const send = (from: string) =>
    transact(mx, from, ['hello@acme.test'], plainMail(from || 'mailer-daemon@elsewhere.test', 'hello@acme.test'));
  for (let i = 0; i < 3; i++) assert.match((await send('flood@elsewhere.test')).end, /^250 /);
  const fourth = await send('FLOOD@elsewhere.test');
  assert.equal(fourth.mail, '451 4.7.1 Too much mail from this sender in the last minute; try again later');
  // Another sender is taken; the workspace is then at 4 of 5.
  assert.match((await send('other@elsewhere.test')).end, /^250 /);
  assert.match((await send('')).end, /^250 /);
  // The workspace's fifth is past its limit, whoever sends it.
  const sixth = await send('third@elsewhere.test');
  assert.equal(sixth.rcpts[0], "451 4.7.1 Too much mail for this recipient's workspace in the last minute; try again later");
  assert.equal((await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 20, offset: 0 })).total, 5);
  const stats = s.daemon.listeners.find((l) => l.name === 'mx')!.stats!();
  assert.equal(stats.deferred, 2);
});
