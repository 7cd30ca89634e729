import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTarget, forbiddenAddress, pickAddress } from '../../../src/webhooks/guard.js';

test('addresses inside the network are refused however they are spelled; public ones pass', () => {
  const refused: Array<[string, RegExp]> = [
    ['127.0.0.1', /loopback/],
    ['127.8.9.10', /loopback/],
    ['::1', /loopback/],
    ['10.0.0.1', /private/],
    ['172.16.5.4', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['0.0.0.0', /this network/],
    ['224.0.0.251', /multicast/],
    ['ff02::1', /multicast/],
    ['fe80::1', /link-local/],
    ['fd00:ec2::254', /unique local/],
    ['::ffff:10.0.0.1', /private address \(10\.0\.0\.1\) in IPv6 form/],
    ['::ffff:7f00:1', /loopback address \(127\.0\.0\.1\)/],
    ['64:ff9b::a9fe:a9fe', /link-local .*169\.254\.169\.254/],
    ['2002:c0a8:0101::1', /private .*192\.168\.1\.1/],
    ['::', /unspecified/],
  ];
  for (const [ip, why] of refused) assert.match(forbiddenAddress(ip) ?? 'allowed', why, ip);
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(forbiddenAddress(ip), null, ip);
});

test('webhook URLs: https only, no private literal or localhost, unless insecure targets are allowed', () => {
  for (const url of [
    'https://127.0.0.1/',
    'https://[::1]:8443/x',
    'https://169.254.169.254/latest/meta-data',
    'https://0x7f000001/',
    'https://2130706433/',
    'https://[::ffff:10.0.0.1]/',
    'https://localhost/',
    'https://api.localhost/',
  ]) {
    assert.throws(() => checkTarget(url, false), /allowed only with --allow-insecure-webhooks/, url);
    assert.doesNotThrow(() => checkTarget(url, true), url);
  }
  assert.throws(() => checkTarget('http://hooks.example.com/', false), /must be https/);
  assert.equal(checkTarget('http://127.0.0.1:9/x', true).literal, true);
  assert.throws(() => checkTarget('ftp://hooks.example.com/', true), /must be https/);
  assert.throws(() => checkTarget('not a url', false), /invalid webhook URL/);
  const t = checkTarget('https://hooks.example.com/in#frag', false);
  assert.deepEqual([t.url.toString(), t.host, t.literal], ['https://hooks.example.com/in', 'hooks.example.com', false]);
});

test('a name is refused when any of its addresses is private, and pinned to a checked one otherwise', async () => {
  const answers: Record<string, string[]> = { 'ok.test': ['93.184.216.34'], 'mixed.test': ['93.184.216.34', '10.0.0.7'] };
  const resolve = async (h: string) => (answers[h] ?? []).map((address) => ({ address, family: 4 as const }));
  assert.deepEqual(await pickAddress(checkTarget('https://ok.test/', false), resolve, false), { address: '93.184.216.34', family: 4 });
  await assert.rejects(
    pickAddress(checkTarget('https://mixed.test/', false), resolve, false),
    /mixed\.test resolves to a private address \(10\.0\.0\.7\)/,
  );
  assert.equal((await pickAddress(checkTarget('https://mixed.test/', true), resolve, true)).address, '93.184.216.34');
});
