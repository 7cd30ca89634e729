import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import DKIM from 'nodemailer/lib/dkim';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { DkimSigner, SIGNED_HEADERS, relaxedBody } from '../../../src/send/dkim.js';
import type { Domain } from '../../../src/model/domain.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'der' },
});
const domain = { id: 'd', domain: 'acme.test', dkim_private_key: privateKey, dkim_verified: true } as Domain;
const txt = `v=DKIM1; k=rsa; p=${publicKey.toString('base64')}`;

/** nodemailer's own streaming signer: the reference our one-pass signer must match byte for byte. */
async function reference(raw: Buffer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of new DKIM({ domainName: 'acme.test', keySelector: 'svc1', privateKey, headerFieldNames: SIGNED_HEADERS }).sign(raw))
    chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const head =
  'From: Acme <hello@acme.test>\r\nTo: jane@rcpt.test\r\nSubject: Hi\r\n  there\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\nMessage-ID: <x@acme.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n';

const bodies: Record<string, string> = {
  plain: 'Hello\r\nworld\r\n',
  'trailing whitespace and tabs': 'a  \t b \t\r\n\t lead\r\nend \t',
  'empty lines at the end': 'x\r\n\r\n\r\n \r\n\t\r\n',
  'empty lines inside': 'x\r\n\r\n\r\ny\r\n',
  'bare LF and CR': 'one\ntwo\r\nthree\rfour\n',
  'no final newline': 'last line',
  'only whitespace': ' \r\n\t\r\n',
  'whitespace-only last line': 'x\r\n\r\n \t',
  empty: '',
  'eight-bit bytes': 'caf\xe9  \xa0 x\r\n',
};

const tag = (signed: Buffer, t: string) =>
  new RegExp(`\\b${t}=([^;]+)`)
    .exec(
      signed
        .toString('latin1')
        .split('\r\n\r\n')[0]!
        .replace(/\r\n[ \t]+/g, ''),
    )?.[1]
    ?.replace(/\s+/g, '');
const verify = (signed: Buffer) =>
  dkimVerify(signed, {
    resolver: async (name: string, type: string) => (type === 'TXT' && name === 'svc1._domainkey.acme.test' ? [[txt]] : []) as never,
  });

for (const [name, body] of Object.entries(bodies)) {
  test(`DKIM: the body hash equals nodemailer's streaming signer's, and the signature verifies (${name})`, async () => {
    const raw = Buffer.from(head + body, 'latin1');
    const ours = new DkimSigner().sign(raw, domain);
    assert.equal(tag(ours, 'bh'), tag(await reference(raw), 'bh'));
    assert.ok(ours.subarray(ours.length - raw.length).equals(raw), 'the message itself is untouched');
    const r = await verify(ours);
    assert.equal(r.results[0]?.status.result, 'pass', JSON.stringify(r.results[0]?.status));
  });
}

test('DKIM: From and Subject are over-signed, so one added on the way breaks the signature', async () => {
  const raw = Buffer.from(head + 'Hello\r\n', 'latin1');
  const signed = new DkimSigner().sign(raw, domain);
  assert.equal(tag(signed, 'h'), 'from:to:subject:date:message-id:mime-version:content-type:from:subject');
  for (const added of ['From: Evil <ceo@evil.test>\r\n', 'Subject: Urgent: wire money\r\n']) {
    const tampered = Buffer.concat([Buffer.from(added, 'latin1'), signed]);
    const r = await verify(tampered);
    assert.notEqual(r.results[0]?.status.result, 'pass', added);
  }
});

test('DKIM: a 20 KB quoted-printable message verifies with mailauth', async () => {
  const body = Array.from({ length: 300 }, (_, i) => `line ${i} <a href=3D"https://example.com/${i}">x</a>=\r\n`).join('') + '\r\n';
  const signed = new DkimSigner().sign(Buffer.from(head + body), domain);
  const r = await dkimVerify(signed, {
    resolver: async (name: string, type: string) => (type === 'TXT' && name === 'svc1._domainkey.acme.test' ? [[txt]] : []) as never,
  });
  assert.equal(r.results[0]?.status.result, 'pass', JSON.stringify(r.results[0]?.status));
});

test('DKIM: relaxed body canonicalization is linear on hostile input', () => {
  // Long runs of whitespace and of empty lines: each pass of relaxedBody is one linear scan.
  const hostile = Buffer.from(' '.repeat(2_000_000) + 'x' + '\r\n'.repeat(1_000_000) + '\t'.repeat(1_000_000));
  assert.equal(relaxedBody(hostile), ' x\r\n');
});

test('DKIM: an independent verifier (dkimpy) accepts the over-signed signature', async (t) => {
  const probe = spawnSync('/usr/bin/python3', ['-c', 'import dkim']);
  if (probe.error || probe.status !== 0) return t.skip('python3-dkim is not installed (apt-get install python3-dkim)');
  const signed = new DkimSigner().sign(Buffer.from(head + 'Hello \t there\r\n\r\n', 'latin1'), domain);
  const script =
    'import sys, dkim\nkey = sys.argv[1].encode()\nmsg = sys.stdin.buffer.read()\nprint(dkim.verify(msg, dnsfunc=lambda name, timeout=5: key if name == b"svc1._domainkey.acme.test." else None))';
  const r = spawnSync('/usr/bin/python3', ['-c', script, txt], { input: signed });
  assert.equal(r.stdout.toString().trim(), 'True', r.stderr.toString());
});
