// The inbound classifier without the SMTP around it: whose mail a recipient is, and what a received
// message is and changes, on a real store with a domain verified through real DNS queries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testService } from '../../helpers/service.js';
import { fixtureDns } from '../../helpers/dns-server.js';
import { publish } from '../../helpers/domains.js';
import { isSvcError } from '../../../src/errors.js';
import { inboundService, type Recipient } from '../../../src/inbox/receive.js';
import { returnPath } from '../../../src/mail/return-path.js';

const refusedAs = (kind: string) => (e: unknown) => isSvcError(e) && e.kind === kind;

async function setUp(t: { after(fn: () => unknown): void }, config: { storageLimit?: number } = {}) {
  const dns = await fixtureDns(t);
  const { service } = await testService(t, { config: { dnsServers: [dns.server], ...config } });
  const ws = await service.workspaces.create('acme', 'scale');
  const d = await service.domains.add(ws, 'acme.test');
  publish(dns, 'acme.test', d.records);
  assert.ok((await service.domains.verify(ws, 'acme.test')).passed);
  await service.addresses.add(ws, 'hello@acme.test');
  await service.sendJson(ws, { from: 'hello@acme.test', to: ['jane@rcpt.test', 'bob@rcpt.test'], subject: 'Hello', body_text: 'Hi' });
  const listed = (await service.messages.list(ws, {})).data;
  const jane = (await service.store.messages.byIds([listed.find((m) => m.to === 'jane@rcpt.test')!.id]))[0]!;
  return { service, ws, jane, inbound: inboundService(service.deps) };
}

const mail = (headers: string, body = 'Hello there\r\n') => Buffer.from(`${headers.trim().replace(/\n/g, '\r\n')}\r\n\r\n${body}`);
const envelope = (recipients: Recipient[], mailFrom = 'someone@elsewhere.test') => ({ mailFrom, recipients, remoteIp: '127.0.0.1' });

test('recipients: registered addresses, postmaster and abuse of a verified domain, return paths of our records; nothing else', async (t) => {
  const { ws, jane, inbound } = await setUp(t);
  assert.deepEqual(await inbound.recipient('Hello@Acme.test'), { address: 'hello@acme.test', workspace_id: ws.id, returnPathOf: null });
  for (const role of ['postmaster@acme.test', 'abuse@acme.test']) assert.equal((await inbound.recipient(role)).workspace_id, ws.id);
  await assert.rejects(inbound.recipient('nobody@acme.test'), refusedAs('unknown_mailbox'));
  await assert.rejects(inbound.recipient('hello@elsewhere.test'), refusedAs('relay_denied'));
  await assert.rejects(inbound.recipient('not an address'), refusedAs('invalid_recipient'));
  const rp = await inbound.recipient(returnPath(jane.id, jane.from));
  assert.equal(rp.returnPathOf?.id, jane.id);
  // A return path's domain must be its record's sender's: one cannot be moved to another domain.
  await assert.rejects(inbound.recipient(returnPath(jane.id, 'x@elsewhere.test')), refusedAs('unknown_mailbox'));
  await assert.rejects(inbound.recipient(returnPath('00000000-0000-4000-8000-000000000000', jane.from)), refusedAs('unknown_mailbox'));
  // A bare postmaster is the operator's: with no system sender and an MX host of no verified domain, nobody's.
  await assert.rejects(inbound.recipient('postmaster'), refusedAs('unknown_mailbox'));
});

test('what a message is: mail, an unauthenticated answer to ours, automatic mail, a bounce at a return path, an unproven complaint', async (t) => {
  const { service, ws, jane, inbound } = await setUp(t);
  const hello = await inbound.recipient('hello@acme.test');

  const [plain] = await inbound.receive(
    envelope([hello]),
    mail('From: Someone <someone@elsewhere.test>\nTo: hello@acme.test\nSubject: A question\nMessage-ID: <q-1@elsewhere.test>'),
  );
  assert.equal(plain!.kind, 'mail');
  assert.equal(plain!.from_name, 'Someone');
  assert.equal(plain!.message_ref, null);

  // An answer to our message that nobody vouches for (nothing evaluated here): threaded, not counted.
  const [answer] = await inbound.receive(
    envelope([hello], 'jane@rcpt.test'),
    mail(`From: jane@rcpt.test\nTo: hello@acme.test\nSubject: Re: Hello\nIn-Reply-To: <${jane.message_id}>`),
  );
  assert.equal(answer!.kind, 'mail');
  assert.equal(answer!.message_ref, jane.id);
  assert.match(answer!.note!, /not authenticated/);
  assert.equal((await service.store.messages.byIds([jane.id]))[0]!.reply_count, 0);

  const [auto] = await inbound.receive(
    envelope([hello]),
    mail('From: x@elsewhere.test\nTo: hello@acme.test\nSubject: Out of office\nAuto-Submitted: auto-replied'),
  );
  assert.equal(auto!.kind, 'auto_reply');
  assert.match(auto!.note!, /automatic mail \(Auto-Submitted: auto-replied\)/);

  // A bounce at Jane's return path: her record bounced and her address suppressed.
  const rp = await inbound.recipient(returnPath(jane.id, jane.from));
  const dsn = `From: MAILER-DAEMON@rcpt.test
To: ${rp.address}
Subject: Undelivered
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; rcpt.test

Final-Recipient: rfc822; jane@rcpt.test
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 user unknown

--B--`;
  const [bounce] = await inbound.receive(envelope([rp], ''), mail(dsn, ''));
  assert.equal(bounce!.kind, 'bounce');
  assert.equal(bounce!.message_ref, jane.id);
  assert.equal((await service.store.messages.byIds([jane.id]))[0]!.status, 'bounced');
  assert.deepEqual(
    (await service.store.suppressions.find(ws.id, ['jane@rcpt.test', 'bob@rcpt.test'])).map((s) => [s.address, s.reason]),
    [['jane@rcpt.test', 'bounce']],
  );

  // The same report sent to the team inbox address changes nobody: it is kept as a report that proves nothing.
  const arf = dsn
    .replace('report-type=delivery-status', 'report-type=feedback-report')
    .replace(
      'Content-Type: message/delivery-status\n\nReporting-MTA: dns; rcpt.test\n\nFinal-Recipient: rfc822; jane@rcpt.test\nAction: failed\nStatus: 5.1.1\nDiagnostic-Code: smtp; 550 5.1.1 user unknown',
      'Content-Type: message/feedback-report\n\nFeedback-Type: abuse\nOriginal-Rcpt-To: bob@rcpt.test',
    );
  const [complaint] = await inbound.receive(
    envelope([hello], 'fbl@isp.test'),
    mail(arf.replace(`To: ${rp.address}`, 'To: hello@acme.test'), ''),
  );
  assert.equal(complaint!.kind, 'mail');
  assert.match(complaint!.note!, /not acted on/);
  assert.equal((await service.store.suppressions.find(ws.id, ['bob@rcpt.test'])).length, 0);

  // Mail to a return path that is no report (a challenge-response filter): kept with its message, never a reply.
  const [misdirected] = await inbound.receive(
    envelope([rp]),
    mail(`From: filter@rcpt.test\nTo: ${rp.address}\nSubject: Please confirm you are human`),
  );
  assert.equal(misdirected!.kind, 'mail');
  assert.equal(misdirected!.message_ref, jane.id);
  assert.match(misdirected!.note!, /sent to a return path/);
});

test('storage: a workspace whose received mail fills its limit takes no more, checked at RCPT and again at DATA', async (t) => {
  const { inbound } = await setUp(t, { storageLimit: 12_000 });
  const hello = await inbound.admit('hello@acme.test');
  await inbound.receive(envelope([hello]), mail('From: a@elsewhere.test\nTo: hello@acme.test\nSubject: 1', 'x'.repeat(5_000)));
  // Another at least 4096 bytes more would pass the limit: refused at DATA, nothing kept.
  await assert.rejects(
    inbound.receive(envelope([hello]), mail('From: a@elsewhere.test\nTo: hello@acme.test\nSubject: 2', 'x'.repeat(8_000))),
    refusedAs('storage_quota'),
  );
  await inbound.receive(envelope([hello]), mail('From: a@elsewhere.test\nTo: hello@acme.test\nSubject: 3', 'x'.repeat(1_000)));
  // Full to the byte (a message counts at least 4096): the next RCPT is refused.
  const full = await setUp(t, { storageLimit: 4096 });
  const to = await full.inbound.admit('hello@acme.test');
  await full.inbound.receive(envelope([to]), mail('From: a@elsewhere.test\nTo: hello@acme.test\nSubject: 1'));
  await assert.rejects(full.inbound.admit('hello@acme.test'), refusedAs('storage_quota'));
  await assert.rejects(
    full.inbound.recipient('hello@acme.test').then((r) => full.inbound.receive(envelope([r]), mail('Subject: 2'))),
    refusedAs('storage_quota'),
  );
});
