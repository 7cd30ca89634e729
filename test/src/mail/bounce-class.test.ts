import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyReply, stageOf } from '../../../src/mail/bounce-class.js';

const at = (
  stage: Parameters<typeof classifyReply>[0]['stage'],
  code: number | undefined,
  text: string,
  route: 'direct' | 'smarthost' = 'direct',
) => {
  const c = classifyReply({ code, text, stage }, route);
  return `${c.outcome}/${c.class}`;
};

test('only a bad mailbox or domain suppresses; policy, content and sender refusals bounce without', () => {
  assert.equal(at('rcpt', 550, '550 5.1.1 <gone@x.test>: Recipient address rejected: User unknown'), 'permanent/bad-mailbox');
  assert.equal(at('rcpt', 550, '5.1.10 null MX'), 'permanent/bad-domain');
  assert.equal(at('rcpt', 550, '550 5.2.1 mailbox disabled'), 'permanent/mailbox-disabled');
  assert.equal(at('rcpt', 552, '552 5.2.2 mailbox full'), 'temporary/mailbox-full');
  assert.equal(at('rcpt', 554, '554 5.7.1 Service unavailable; Client host [1.2.3.4] blocked using zen.spamhaus.org'), 'rejected/policy');
  assert.equal(at('rcpt', 554, '554 5.7.1 <x@y>: Relay access denied'), 'rejected/policy');
  assert.equal(at('data', 550, '550 5.7.1 Message rejected as spam'), 'rejected/content');
  assert.equal(at('data', 550, '550 5.1.1 user unknown'), 'rejected/content', 'after DATA: the message, not the mailbox');
  assert.equal(at('mail', 550, '550 5.7.1 sender rejected'), 'rejected/sender');
  assert.equal(at('connect', 554, '554 5.7.1 your IP is listed'), 'rejected/policy');
  // No enhanced code: plain words only.
  assert.equal(at('rcpt', 550, '550 no such user here'), 'permanent/bad-mailbox');
  assert.equal(at('rcpt', 550, '550 mailbox full'), 'temporary/mailbox-full');
  assert.equal(at('rcpt', 550, '550 go away'), 'rejected/refused');
});

test('4xx and connection failures are temporary; at a smarthost, anything before RCPT is our hop', () => {
  assert.equal(at('rcpt', 451, '451 4.7.1 greylisted'), 'temporary/deferred');
  assert.equal(at('rcpt', 452, '452 4.5.3 Too many recipients'), 'temporary/deferred');
  assert.equal(at('connect', undefined, 'connect ECONNREFUSED'), 'temporary/connection');
  assert.equal(at('mail', undefined, 'Message size larger than allowed 1000'), 'rejected/too-large');
  assert.equal(at('auth', 535, '535 5.7.8 Error: authentication failed', 'smarthost'), 'hop/hop-auth');
  assert.equal(at('mail', 550, '550 5.7.1 sender not allowed', 'smarthost'), 'hop/hop-mail');
  assert.equal(at('connect', undefined, 'ECONNREFUSED', 'smarthost'), 'hop/hop-connect');
  assert.equal(at('tls', undefined, 'self signed certificate', 'smarthost'), 'hop/hop-tls');
  // A smarthost refusing our sender or relaying at RCPT is our hop too, never the recipient's bounce.
  assert.equal(at('rcpt', 554, '554 5.7.1 <a@b>: Relay access denied', 'smarthost'), 'hop/hop-relay');
  assert.equal(
    at('rcpt', 553, '553 5.7.1 <bounces+x@acme.test>: Sender address rejected: not owned by user app', 'smarthost'),
    'hop/hop-sender',
  );
  assert.equal(at('rcpt', 550, '550 5.7.54 SMTP; Unable to relay recipient in non-accepted domain', 'smarthost'), 'hop/hop-relay');
  assert.equal(at('rcpt', 550, '550 5.7.64 TenantAttribution; Relay Access Denied', 'smarthost'), 'hop/hop-relay');
  assert.equal(
    classifyReply(
      { code: 550, text: '550 5.7.1 <hello@acme.test>: not allowed to send as this address', stage: 'rcpt', sender: 'hello@acme.test' },
      'smarthost',
    ).outcome,
    'hop',
  );
  assert.equal(
    classifyReply({ code: 550, text: '550 5.7.1 <jane@rcpt.test>: policy', stage: 'rcpt', sender: 'hello@acme.test' }, 'smarthost').outcome,
    'rejected',
  );
  // At an MX, the same words are the receiving domain's policy.
  assert.equal(at('rcpt', 554, '554 5.7.1 <a@b>: Relay access denied'), 'rejected/policy');
  // Recipients refused by the smarthost are otherwise classified like any others.
  assert.equal(at('rcpt', 550, '550 5.1.1 unknown', 'smarthost'), 'permanent/bad-mailbox');
});

test('the stage of a nodemailer error', () => {
  assert.equal(stageOf({ command: 'RCPT TO', code: 'EENVELOPE' }), 'rcpt');
  assert.equal(stageOf({ command: 'MAIL FROM', code: 'EENVELOPE' }), 'mail');
  assert.equal(stageOf({ command: 'AUTH PLAIN', code: 'EAUTH' }), 'auth');
  assert.equal(stageOf({ command: 'DATA', code: 'EMESSAGE' }), 'data');
  assert.equal(stageOf({ code: 'EMESSAGE' }), 'data');
  assert.equal(stageOf({ command: 'CONN', code: 'ETLS' }), 'tls');
  assert.equal(stageOf({ command: 'CONN', code: 'ECONNECTION' }), 'connect');
  assert.equal(
    stageOf({ command: 'CONN', code: 'ESOCKET', message: '8003:error:0A00042E:SSL routines:ssl3_read_bytes:tlsv1 alert protocol version' }),
    'tls',
  );
  assert.equal(stageOf({ command: 'CONN', code: 'ESOCKET', message: 'certificate has expired' }), 'tls');
  assert.equal(stageOf({ command: 'CONN', code: 'ESOCKET', message: 'read ECONNRESET' }), 'connect');
});
