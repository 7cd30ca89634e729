import { test } from 'node:test';
import assert from 'node:assert/strict';
import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { hostNameProblem, toAsciiDomain } from '../../../src/mail/names.js';

/** toAsciiDomain without its fast path: the full conversion and checks, as before it. */
function slow(input: string): string | null {
  const trimmed = input.trim().replace(/\.$/, '');
  if (!trimmed || trimmed.length > 253 * 4 || isIP(trimmed)) return null;
  const ascii = domainToASCII(trimmed).toLowerCase();
  return ascii && hostNameProblem(ascii) === null ? ascii : null;
}

test('toAsciiDomain: the fast path for plain names answers exactly what the full conversion does', () => {
  const names = [
    'acme.test',
    'mail.acme.test',
    'a.io',
    'x1.y2.z3',
    'a-b.c-d',
    'ab--cd.example',
    '0.example',
    '123.example',
    'example.123',
    'example.0x10',
    '0x7f.1',
    'foo.0x10',
    'a.b1',
    'a.1b',
    '-a.example',
    'a-.example',
    'a..example',
    '.example',
    'example.',
    'example',
    'ACME.test',
    'Acme.Test',
    ' acme.test',
    'xn--bcher-kva.example',
    'xn--zz.example',
    'a.xn--p1ai',
    'bücher.example',
    'exämple.com',
    'a_b.example',
    'a.b_c',
    '127.0.0.1',
    '[::1]',
    '::1',
    'a'.repeat(63) + '.example',
    'a'.repeat(64) + '.example',
    `${'a'.repeat(60)}.`.repeat(4) + 'example',
    `${'a'.repeat(61)}.`.repeat(4) + 'ex',
    'a.b.c.d.e.f.g.h',
    'a.b-',
    'a.-b',
    'a.b--c',
    'a.b.',
    '',
  ];
  for (const n of names) assert.equal(toAsciiDomain(n), slow(n), n);
  // And over random short names of the characters that matter.
  const alphabet = 'ab0-.xnX';
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 20_000; i++) {
    const n = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
    assert.equal(toAsciiDomain(n), slow(n), n);
  }
});
