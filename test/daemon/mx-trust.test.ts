// Trust on the inbound path, on both backends, over real SMTP sessions: a return path
// per recipient, so a recipient can report only about itself; complaints only where complaints
// come and only of the kinds that mean it; RFC 3464 semantics and older bounce formats; SPF, DKIM
// and DMARC on every message, with our trace fields first; automatic mail never a person.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sending, settled, byTo, type Sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { arf, dsn, replyTo, transact } from '../helpers/mx.js';
import { returnPath } from '../../src/mail/return-path.js';
import { fromRoot } from '../helpers/root.js';

const backends = ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])];
const rp = (m: { id: string }) => returnPath(m.id, 'hello@acme.test');

async function daemon(t: { after(fn: () => unknown): void }, backend: string, env: Record<string, string> = {}) {
  const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
  const s = await sending(t, { ...(pgUrl ? { store: pgLocation(pgUrl) } : {}), env });
  return { s, mx: s.daemon.url('mx'), service: s.daemon.service };
}

/** One text-only send (one copy shared by all) to `to`, `cc` and `bcc`, handed off; its records by recipient. */
async function sendShared(s: Sending, to: string[], cc: string[] = [], bcc: string[] = []) {
  const before = s.sink.received.length;
  const r = await s.post({ from: 'hello@acme.test', to, cc, bcc, subject: 'Hello', body_text: 'Hello there' });
  assert.equal(r.status, 202);
  const n = to.length + cc.length + bcc.length;
  await s.sink.waitFor(before + n);
  const records = await byTo(s);
  for (const a of [...to, ...cc, ...bcc]) assert.equal((await settled(s, records[a].id)).status, 'sent');
  return records;
}

/** A fixture of fixtures/mail/ with its placeholders filled, CRLF line ends. */
const fixture = (name: string, fill: Record<string, string>) =>
  Object.entries(fill)
    .reduce((text, [k, v]) => text.replaceAll(`{{${k}}}`, v), readFileSync(fromRoot('fixtures/mail', name), 'utf8'))
    .replace(/\r?\n/g, '\r\n');

const latest = async (s: Sending) => (await s.daemon.service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 1, offset: 0 })).data[0]!;
const suppressed = async (s: Sending, a: string) => (await s.daemon.service.store.suppressions.find(s.ws.id, [a]))[0]?.reason ?? null;

for (const backend of backends) {
  test(`${backend}: MX trust: a return path per recipient; a co-recipient's forged DSN or ARF changes nobody; Original-Recipient; 4.x.x failed bounces without suppressing`, async (t) => {
    const { s, mx } = await daemon(t, backend);
    const m = await sendShared(s, ['alice@rcpt.test', 'bob@rcpt.test'], ['carol@other.test'], ['dave@rcpt.test']);
    // One transaction per recipient, each with the return path of that recipient's record alone.
    const tx = s.sink.received.slice(-4);
    assert.deepEqual(
      tx.map((x) => x.to.length),
      [1, 1, 1, 1],
    );
    for (const x of tx) assert.equal(x.from, rp(m[x.to[0]!]));
    // The same copy for all of them, byte for byte (text only: nothing per recipient).
    assert.equal(new Set(tx.map((x) => x.raw.toString('base64'))).size, 1);

    // Alice forges a failure report about Bob (To) and Carol (Cc, another domain) to her own return path.
    for (const victim of ['bob@rcpt.test', 'carol@other.test']) {
      const r = await transact(
        mx,
        '',
        [rp(m['alice@rcpt.test'])],
        dsn(victim, m[victim].message_id, 'failed', '5.1.1', `550 5.1.1 <${victim}>: user unknown`),
      );
      assert.match(r.end, /^250 /);
      const item = await latest(s);
      assert.equal(item.kind, 'bounce');
      assert.match(item.note!, /not the recipient this return path was used for; nothing changed/);
    }
    for (const a of ['alice@rcpt.test', 'bob@rcpt.test', 'carol@other.test']) {
      assert.equal((await s.get(`/api/v2/messages/${m[a].id}`)).body.status, 'sent');
      assert.equal(await suppressed(s, a), null);
    }
    // A forged complaint at the public address, naming the send's Message-ID and the Bcc recipient: kept as mail.
    assert.match(
      (await transact(mx, 'abuse@isp.test', ['hello@acme.test'], arf('dave@rcpt.test', m['dave@rcpt.test'].message_id))).end,
      /^250 /,
    );
    assert.deepEqual([(await latest(s)).kind, await suppressed(s, 'dave@rcpt.test')], ['mail', null]);
    assert.match((await latest(s)).note!, /not acted on/);
    // Alice's complaint naming Bob, at her own return path: nobody.
    await transact(mx, '', [rp(m['alice@rcpt.test'])], arf('bob@rcpt.test', m['bob@rcpt.test'].message_id));
    assert.equal(await suppressed(s, 'bob@rcpt.test'), null);

    // Carol's mailbox forwards: the report names the forward target and, as Original-Recipient, Carol.
    const forwarded = dsn(
      'carol.new@elsewhere.test',
      m['carol@other.test'].message_id,
      'failed',
      '5.1.1',
      '550 5.1.1 user unknown',
    ).replace(
      'Final-Recipient: rfc822; carol.new@elsewhere.test',
      'Original-Recipient: rfc822; carol@other.test\r\nFinal-Recipient: rfc822; carol.new@elsewhere.test',
    );
    await transact(mx, '', [rp(m['carol@other.test'])], forwarded);
    assert.equal((await s.get(`/api/v2/messages/${m['carol@other.test'].id}`)).body.status, 'bounced');
    assert.equal(await suppressed(s, 'carol@other.test'), 'bounce');

    // Postfix's final report for a message that expired in a receiver's queue: failed, 4.3.2. Bounced, not suppressed.
    // Its original part is 3 MB: only the report's first megabyte is parsed, which holds its status.
    const padded = dsn(
      'bob@rcpt.test',
      m['bob@rcpt.test'].message_id,
      'failed',
      '4.3.2',
      '421 4.3.2 system not accepting network messages',
    ).replace('Subject: Hello\r\n', `Subject: Hello\r\n${`X-Pad: ${'p'.repeat(990)}\r\n`.repeat(3200)}`);
    assert.ok(padded.length > 3_000_000);
    await transact(mx, '', [rp(m['bob@rcpt.test'])], padded);
    const bob = (await s.get(`/api/v2/messages/${m['bob@rcpt.test'].id}`)).body;
    assert.deepEqual([bob.status, await suppressed(s, 'bob@rcpt.test')], ['bounced', null]);
    assert.match(bob.error, /4\.3\.2/);
    assert.match((await latest(s)).note!, /failed 4\.3\.2, not suppressed/);

    // A return path of any other form than the per-recipient one (the dashed id a copy shared by
    // several once used) is no address of ours: refused at RCPT, so a co-recipient cannot report.
    const anonymous = dsn('x@x', m['alice@rcpt.test'].message_id, 'failed', '5.1.1', 'gone').replace(
      'Final-Recipient: rfc822; x@x\r\n',
      '',
    );
    const old = await transact(mx, '', [`bounces+${m['alice@rcpt.test'].id}@acme.test`], anonymous);
    assert.match(old.rcpts[0]!, /^550 5\.1\.1 /);
    assert.equal((await s.get(`/api/v2/messages/${m['alice@rcpt.test'].id}`)).body.status, 'sent');
    // At Alice's own (per-recipient) return path it is about Alice.
    await transact(mx, '', [rp(m['alice@rcpt.test'])], anonymous);
    assert.equal((await s.get(`/api/v2/messages/${m['alice@rcpt.test'].id}`)).body.status, 'bounced');
  });

  test(`${backend}: MX trust: complaints by type and place: abuse at a return path suppresses (redacted too), not-spam lifts, auth-failure and virus change nothing, a configured feedback loop at a mailbox`, async (t) => {
    const { s, mx } = await daemon(t, backend, { SVC_FEEDBACK_LOOPS: 'isp.test' });
    const m = await sendShared(s, ['c1@rcpt.test', 'c2@rcpt.test', 'c3@rcpt.test']);
    // c2 complains through a provider that redacts: the return path alone says who.
    await transact(mx, 'fbl@isp.test', [rp(m['c2@rcpt.test'])], arf('c2@rcpt.test', m['c2@rcpt.test'].message_id, { redacted: true }));
    assert.deepEqual([await suppressed(s, 'c1@rcpt.test'), await suppressed(s, 'c2@rcpt.test')], [null, 'complaint']);
    assert.equal((await latest(s)).kind, 'complaint');
    // Then a not-spam report for c2: the complaint suppression is lifted.
    await transact(mx, 'fbl@isp.test', [rp(m['c2@rcpt.test'])], arf('c2@rcpt.test', m['c2@rcpt.test'].message_id, { type: 'not-spam' }));
    assert.equal(await suppressed(s, 'c2@rcpt.test'), null);
    assert.equal((await latest(s)).note, 'not-spam report about c2@rcpt.test; its complaint suppression is lifted');
    // not-spam never lifts a suppression made for another reason, and says so.
    await s.daemon.service.suppressions.add(s.ws, 'c3@rcpt.test');
    await transact(mx, 'fbl@isp.test', [rp(m['c3@rcpt.test'])], arf('c3@rcpt.test', m['c3@rcpt.test'].message_id, { type: 'not-spam' }));
    assert.equal(await suppressed(s, 'c3@rcpt.test'), 'manual');
    assert.equal(
      (await latest(s)).note,
      'not-spam report about c3@rcpt.test; nothing lifted: the address is suppressed for another reason (manual), which only an operator lifts',
    );
    await transact(mx, 'fbl@isp.test', [rp(m['c1@rcpt.test'])], arf('c1@rcpt.test', m['c1@rcpt.test'].message_id, { type: 'not-spam' }));
    assert.equal((await latest(s)).note, 'not-spam report about c1@rcpt.test; nothing lifted: the address is not suppressed');
    // DMARC forensic (auth-failure), virus and other reports: kept, nothing changed.
    for (const type of ['auth-failure', 'virus', 'other']) {
      await transact(mx, 'fbl@isp.test', [rp(m['c1@rcpt.test'])], arf('c1@rcpt.test', m['c1@rcpt.test'].message_id, { type }));
      assert.equal(await suppressed(s, 'c1@rcpt.test'), null, type);
      assert.match((await latest(s)).note!, new RegExp(`${type} report about c1@rcpt\\.test; kept, nothing changed`));
    }
    // fraud suppresses as abuse does.
    await transact(mx, 'fbl@isp.test', [rp(m['c1@rcpt.test'])], arf('c1@rcpt.test', m['c1@rcpt.test'].message_id, { type: 'fraud' }));
    assert.equal(await suppressed(s, 'c1@rcpt.test'), 'complaint');
    // The configured feedback loop, authenticated (SPF of isp.test), at the team address: acted on.
    const n = await sendShared(s, ['solo@rcpt.test']);
    await transact(mx, 'fbl@isp.test', ['hello@acme.test'], arf('solo@rcpt.test', n['solo@rcpt.test'].message_id));
    assert.equal(await suppressed(s, 'solo@rcpt.test'), 'complaint');
    // The same from a domain that is not a configured loop (nothing authenticates it either): kept as mail.
    const o = await sendShared(s, ['other@rcpt.test']);
    await transact(
      mx,
      'fbl@loose.test',
      ['hello@acme.test'],
      arf('other@rcpt.test', o['other@rcpt.test'].message_id, { from: 'fbl@loose.test' }),
    );
    assert.deepEqual([(await latest(s)).kind, await suppressed(s, 'other@rcpt.test')], ['mail', null]);
  });

  test(`${backend}: MX trust: SPF, DKIM and DMARC on every message; p=reject spoof refused at DATA; unauthenticated replies not counted; trace fields first; automatic mail and older bounce formats`, async (t) => {
    const { s, mx, service } = await daemon(t, backend);
    const m = (await sendShared(s, ['jane@rcpt.test']))['jane@rcpt.test'];
    // "Update our bank details", from a p=reject domain, sent from an address its SPF does not allow.
    const spoof = replyTo('ceo@strict.test', 'hello@acme.test', m.message_id).replace(
      'Thanks, that helps.',
      'Please update our bank details.',
    );
    const refused = await transact(mx, 'ceo@strict.test', ['hello@acme.test'], spoof);
    assert.equal(refused.end, '550 5.7.1 Message rejected: it fails the DMARC policy (p=reject) of its From domain');
    assert.equal((await service.store.inbox.list(s.ws.id, { folder: 'inbox', limit: 10, offset: 0 })).total, 0);
    // A domain that publishes nothing: kept, threaded, marked, never counted.
    assert.match(
      (await transact(mx, 'jane@loose.test', ['hello@acme.test'], replyTo('jane@loose.test', 'hello@acme.test', m.message_id))).end,
      /^250 /,
    );
    const loose = await service.inbox.get(s.ws, (await latest(s)).id);
    assert.deepEqual([loose.kind, loose.message_ref, loose.auth?.verdict], ['mail', m.id, 'none']);
    assert.match(loose.note!, /not authenticated .*not counted as a reply/);
    assert.equal((await s.get(`/api/v2/messages/${m.id}`)).body.reply_count, 0);
    // Jane's real reply (SPF passes for rcpt.test): counted; the stored message starts with our trace fields.
    assert.match(
      (await transact(mx, 'jane@rcpt.test', ['hello@acme.test'], replyTo('jane@rcpt.test', 'hello@acme.test', m.message_id))).end,
      /^250 /,
    );
    const reply = await service.inbox.get(s.ws, (await latest(s)).id, { raw: true });
    assert.deepEqual([reply.kind, reply.auth?.verdict, reply.auth?.spf], ['reply', 'pass', 'pass']);
    const raw = Buffer.from(reply.raw!, 'base64').toString('latin1');
    assert.match(
      raw,
      /^Received: from sender\.test \((\S+ )?\[127\.0\.0\.1\]\)\r\n\tby mx\.svc\.localhost \(svc\) with ESMTP id \S+\r\n\tfor <hello@acme\.test>;\r\n\t\w{3}, \d{2} \w{3} \d{4} [\d:]{8} \+0000\r\nAuthentication-Results: mx\.svc\.localhost;/,
    );
    assert.match(raw, /spf=pass/);
    assert.match(raw, /dmarc=none/);
    assert.equal((await s.get(`/api/v2/messages/${m.id}`)).body.reply_count, 1);

    // A DKIM-signed message (a copy svc itself signed for acme.test, whose DMARC is quarantine): DKIM
    // and DMARC pass on the full check, though SPF cannot (acme.test's SPF names only svc's include).
    const signedCopy = s.sink.received.find((x) => x.to[0] === 'jane@rcpt.test')!.raw;
    assert.match(signedCopy.toString('latin1'), /^DKIM-Signature:/im);
    assert.match((await transact(mx, 'hello@acme.test', ['hello@acme.test'], signedCopy)).end, /^250 /);
    const signed = await service.inbox.get(s.ws, (await latest(s)).id, { raw: true });
    assert.deepEqual([signed.auth?.verdict, signed.auth?.dkim, signed.auth?.dmarc], ['pass', 'pass', 'pass']);
    assert.match(Buffer.from(signed.raw!, 'base64').toString('latin1'), /dkim=pass header\.i=@acme\.test header\.s=svc1/);

    // A procmail vacation reply to the return path (Precedence: junk, X-Loop): automatic, never counted.
    await transact(mx, 'jane@rcpt.test', [rp(m)], fixture('procmail-vacation.eml', { RETURN_PATH: rp(m), MESSAGE_ID: m.message_id }));
    assert.deepEqual([(await latest(s)).kind, (await latest(s)).message_ref], ['auto_reply', m.id]);
    assert.match((await latest(s)).note!, /x-loop header|Precedence: junk/);
    // Debian's vacation (Precedence: bulk, its own subject) to the team address.
    await transact(mx, 'jane@rcpt.test', ['hello@acme.test'], fixture('debian-vacation.eml', { MESSAGE_ID: m.message_id }));
    assert.equal((await latest(s)).kind, 'auto_reply');
    // An ordinary-looking message to a return path is never a person's reply.
    await transact(mx, 'jane@rcpt.test', [rp(m)], replyTo('jane@rcpt.test', rp(m), m.message_id));
    assert.deepEqual(
      [(await latest(s)).kind, (await latest(s)).note],
      ['mail', 'sent to a return path, not to a mailbox; never counted as a reply'],
    );
    assert.equal((await s.get(`/api/v2/messages/${m.id}`)).body.reply_count, 1);

    // qmail's "failure notice" and Exim's older bounce, to return paths: matched and applied.
    const q = await sendShared(s, ['q@rcpt.test', 'e@rcpt.test']);
    for (const [who, file] of [
      ['q@rcpt.test', 'qmail-failure-notice.eml'],
      ['e@rcpt.test', 'exim-mail-delivery-failed.eml'],
    ] as const) {
      const r = await transact(mx, '', [rp(q[who])], fixture(file, { RETURN_PATH: rp(q[who]), RCPT: who, MESSAGE_ID: q[who].message_id }));
      assert.match(r.end, /^250 /);
      assert.equal((await s.get(`/api/v2/messages/${q[who].id}`)).body.status, 'bounced', file);
      assert.equal(await suppressed(s, who), 'bounce', file);
      assert.equal((await latest(s)).kind, 'bounce');
    }
    // A delay is never kind bounce.
    const d = await sendShared(s, ['slow@rcpt.test']);
    await transact(
      mx,
      '',
      [rp(d['slow@rcpt.test'])],
      dsn('slow@rcpt.test', d['slow@rcpt.test'].message_id, 'delayed', '4.4.1', 'connection timed out'),
    );
    assert.deepEqual(
      [(await latest(s)).kind, (await s.get(`/api/v2/messages/${d['slow@rcpt.test'].id}`)).body.status],
      ['auto_reply', 'sent'],
    );
    // Raw UTF-8 in headers (RFC 6532) is read as UTF-8, as the relay reads it.
    await transact(
      mx,
      'jane@rcpt.test',
      ['hello@acme.test'],
      Buffer.from('From: Jürgen <jane@rcpt.test>\r\nSubject: Re: Grüße\r\n\r\nHallo\r\n', 'utf8'),
    );
    assert.equal((await latest(s)).subject, 'Re: Grüße');
    // postmaster@ of a verified domain reaches the inbox unregistered.
    assert.match(
      (await transact(mx, 'jane@rcpt.test', ['postmaster@acme.test'], 'From: jane@rcpt.test\r\nSubject: your server\r\n\r\nHi\r\n')).end,
      /^250 /,
    );
    assert.deepEqual((await latest(s)).to, ['postmaster@acme.test']);
  });
}
