import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  evaluateDkim,
  evaluateDmarc,
  evaluateMx,
  evaluateOwnership,
  evaluateSpf,
  mergeSpf,
  tagList,
} from '../../../src/domains/evaluate.js';
import { normalizeDomain } from '../../../src/mail/names.js';
import { parseMailbox } from '../../../src/mail/address.js';

const found = <T>(...records: T[]) => ({ ok: true as const, records });
const failed = { ok: false as const, reason: 'the DNS query timed out' };
const SD = 'svc.localhost';

test('ownership: our token verifies, another token is a Problem, nothing is Waiting', () => {
  assert.equal(evaluateOwnership(found('svc-verify=abc'), 'abc', false).status, 'Verified');
  assert.equal(evaluateOwnership(found('other', 'svc-verify=abc'), 'abc', false).status, 'Verified');
  assert.equal(evaluateOwnership(found('svc-verify=zzz'), 'abc', false).status, 'Problem');
  assert.equal(evaluateOwnership(found(), 'abc', false).status, 'Waiting');
  assert.equal(evaluateOwnership(found('svc-verify=abc'), 'abc', true).status, 'Problem');
  assert.equal(evaluateOwnership(failed, 'abc', false).status, 'Waiting');
  assert.match(evaluateOwnership(failed, 'abc', false).note!, /timed out/);
});

test('MX: ours at priority 10, case and trailing dot ignored', () => {
  assert.equal(evaluateMx(found({ exchange: 'MX.svc.localhost.', priority: 10 }), 'mx.svc.localhost').status, 'Verified');
  assert.match(evaluateMx(found({ exchange: 'mx.svc.localhost', priority: 5 }), 'mx.svc.localhost').note!, /priority 5; use priority 10/);
  assert.equal(evaluateMx(found({ exchange: 'aspmx.l.google.com', priority: 1 }), 'mx.svc.localhost').status, 'Problem');
  assert.equal(evaluateMx(found(), 'mx.svc.localhost').status, 'Waiting');
});

test('SPF: one record, our include before its all term', () => {
  assert.equal(evaluateSpf(found('v=spf1 include:_spf.svc.localhost -all'), SD).status, 'Verified');
  assert.equal(
    evaluateSpf(found('google-site-verification=x', 'v=spf1 ip4:192.0.2.1 include:_spf.svc.localhost -all'), SD).status,
    'Verified',
  );
  assert.equal(evaluateSpf(found('v=spf1 include:_spf.svc.localhost ~all'), SD).status, 'Recommended');
  // The value given agrees with its note: a record that ends ~all is told -all, and given it.
  const soft = evaluateSpf(found('v=spf1 ip4:192.0.2.1 include:_spf.svc.localhost ~all'), SD);
  assert.match(soft.note!, /-all makes receivers refuse it/);
  assert.equal(soft.value, 'v=spf1 ip4:192.0.2.1 include:_spf.svc.localhost -all');
  assert.equal(evaluateSpf(found('v=spf1 include:_spf.svc.localhost'), SD).status, 'Recommended');
  const plusAll = evaluateSpf(found('v=spf1 include:_spf.svc.localhost +all'), SD);
  assert.equal(plusAll.status, 'Problem');
  assert.equal(plusAll.value, 'v=spf1 include:_spf.svc.localhost -all');
  const after = evaluateSpf(found('v=spf1 -all include:_spf.svc.localhost'), SD);
  assert.deepEqual([after.status, after.value], ['Problem', 'v=spf1 include:_spf.svc.localhost -all']);
  const missing = evaluateSpf(found('v=spf1 include:_spf.google.com ~all'), SD);
  assert.deepEqual([missing.status, missing.value], ['Problem', 'v=spf1 include:_spf.google.com include:_spf.svc.localhost ~all']);
  const two = evaluateSpf(found('v=spf1 include:_spf.google.com -all', 'v=spf1 include:_spf.svc.localhost ~all'), SD);
  assert.equal(two.status, 'Problem');
  assert.match(two.note!, /2 SPF records.*merge/);
  assert.equal(two.value, 'v=spf1 include:_spf.google.com include:_spf.svc.localhost -all');
  assert.equal(evaluateSpf(found('not spf'), SD).status, 'Waiting');
  assert.equal(evaluateSpf(found('v=spf10 x'), SD).status, 'Waiting');
});

test('mergeSpf keeps terms once, puts the include last before the strictest all, never +all', () => {
  assert.equal(mergeSpf(['v=spf1 a mx ?all'], 'include:_spf.x'), 'v=spf1 a mx include:_spf.x ?all');
  assert.equal(mergeSpf(['v=spf1 a +all', 'v=spf1 a mx'], 'include:_spf.x'), 'v=spf1 a mx include:_spf.x -all');
});

test('DKIM: our p= whatever the spacing and splitting, else a Problem naming the value', () => {
  assert.equal(evaluateDkim(found('v=DKIM1; k=rsa; p=ABCD'), 'ABCD').status, 'Verified');
  assert.equal(evaluateDkim(found('v=DKIM1;k=rsa;p=AB CD'), 'ABCD').status, 'Verified');
  assert.equal(evaluateDkim(found('k=rsa; p=ABCD'), 'ABCD').status, 'Verified');
  const wrong = evaluateDkim(found('v=DKIM1; k=rsa; p=ABCE'), 'ABCD');
  assert.equal(wrong.status, 'Problem');
  assert.match(wrong.note!, /publish: v=DKIM1; k=rsa; p=ABCD/);
  assert.equal(evaluateDkim(found('v=DKIM1; k=ed25519; p=ABCD'), 'ABCD').status, 'Problem');
  assert.equal(evaluateDkim(found('v=DKIM1; p='), 'ABCD').status, 'Problem');
  assert.equal(evaluateDkim(found('v=DKIM1; p=ABCD', 'v=DKIM1; p=ABCD'), 'ABCD').status, 'Problem');
  assert.equal(evaluateDkim(found(), 'ABCD').status, 'Waiting');
  assert.deepEqual(
    [...tagList(' v = DKIM1 ; p = A B ').entries()],
    [
      ['v', 'DKIM1'],
      ['p', 'AB'],
    ],
  );
});

test('DMARC: quarantine and reject pass, none passes with the BIMI note, anything else does not', () => {
  assert.equal(evaluateDmarc(found('v=DMARC1; p=quarantine')).status, 'Verified');
  assert.equal(evaluateDmarc(found('v=DMARC1; p=reject; rua=mailto:x@y')).status, 'Verified');
  const none = evaluateDmarc(found('v=DMARC1; p=none'));
  assert.equal(none.status, 'Recommended');
  assert.match(none.note!, /BIMI needs p=quarantine or p=reject/);
  assert.equal(evaluateDmarc(found('v=DMARC1; rua=mailto:x@y')).status, 'Problem');
  assert.equal(evaluateDmarc(found('v=DMARC1; p=bogus')).status, 'Problem');
  assert.equal(evaluateDmarc(found('v=DMARC1; p=none', 'v=DMARC1; p=reject')).status, 'Problem');
  assert.equal(evaluateDmarc(found()).status, 'Waiting');
});

test('domain names: IDN to punycode; IPs, bare TLDs and the service domain refused', () => {
  const svc = { serviceDomain: 'svc.localhost', mxHost: 'mx.svc.localhost' };
  assert.equal(normalizeDomain('Bücher.Example.', svc), 'xn--bcher-kva.example');
  assert.equal(normalizeDomain(' EXAMPLE.com ', svc), 'example.com');
  for (const bad of [
    '192.0.2.1',
    '[::1]',
    '::1',
    'com',
    'localhost',
    'svc.localhost',
    'mx.svc.localhost',
    'a.svc.localhost',
    'exa mple.com',
    '-x.com',
    'x..com',
    'a'.repeat(64) + '.com',
    'x.123',
    '',
  ]) {
    assert.throws(() => normalizeDomain(bad, svc), /./, bad);
  }
});

test('addresses: local@domain, at most 254 characters', () => {
  assert.deepEqual(parseMailbox('Hello@Bücher.example'), {
    address: 'Hello@xn--bcher-kva.example',
    local: 'Hello',
    domain: 'xn--bcher-kva.example',
  });
  for (const bad of [
    'plain',
    '@x.com',
    'a@',
    'a b@x.com',
    'a..b@x.com',
    '.a@x.com',
    'a@x',
    '"q"@x.com',
    'a@b@c.com',
    'x'.repeat(65) + '@x.com',
  ]) {
    assert.ok('error' in parseMailbox(bad), bad);
  }
  // Refused on its length before any pattern runs.
  assert.match((parseMailbox('a'.repeat(40_000) + '@example.com') as { error: string }).error, /254/);
});

test("receivers' view: trailing dots, the most preferred MX, Recommended keeps every term, organizational DMARC", () => {
  assert.equal(evaluateSpf(found('v=spf1 include:_spf.svc.localhost. -all'), SD).status, 'Verified');
  assert.equal(
    mergeSpf(['v=spf1 include:_spf.svc.localhost. ~all'], 'include:_spf.svc.localhost'),
    'v=spf1 include:_spf.svc.localhost ~all',
  );
  const soft = evaluateSpf(found('v=spf1 include:_spf.google.com include:_spf.svc.localhost ~all'), SD);
  // Every term kept; the all term is the one the note recommends.
  assert.deepEqual([soft.status, soft.value], ['Recommended', 'v=spf1 include:_spf.google.com include:_spf.svc.localhost -all']);
  assert.equal(evaluateSpf(found('v=spf1 include:_spf.svc.localhost -all'), SD, 11).status, 'Problem');
  assert.equal(evaluateSpf(found('v=spf1 include:_spf.svc.localhost -all'), SD, 10).status, 'Verified');
  const mx = [
    { exchange: 'aspmx.l.google.com', priority: 1 },
    { exchange: 'mx.svc.localhost', priority: 10 },
  ];
  assert.equal(evaluateMx(found(...mx), 'mx.svc.localhost').status, 'Problem');
  assert.equal(
    evaluateMx(found({ exchange: 'backup.example', priority: 10 }, { exchange: 'mx.svc.localhost', priority: 10 }), 'mx.svc.localhost')
      .status,
    'Problem',
    'as preferred: half the replies go elsewhere',
  );
  assert.equal(
    evaluateMx(found({ exchange: 'backup.example', priority: 20 }, { exchange: 'mx.svc.localhost', priority: 10 }), 'mx.svc.localhost')
      .status,
    'Verified',
    'a backup after ours is fine',
  );
  const org = evaluateDmarc(found(), { domain: 'acme.test', lookup: found('v=DMARC1; p=reject') });
  assert.equal(org.status, 'Verified');
  assert.match(org.note!, /organizational domain acme\.test/);
  assert.equal(evaluateDmarc(found(), { domain: 'acme.test', lookup: found() }).status, 'Waiting');
});
