// Sign-in limits as a person meets them, behind the documented proxy: the client is the one
// X-Forwarded-For names when the proxy is trusted (--trusted-proxy), never otherwise; five wrong
// passwords from one address stop that address for that account, and the account as a whole only
// slows down (a minute at worst), so whoever knows an email cannot lock its owner out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/clock.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { browser, formOf, signedInAs } from '../helpers/app-browser.js';
import { SIGN_IN_PER_ACCOUNT_AND_ADDRESS, SIGN_IN_PER_ADDRESS } from '../../src/people/sign-in.js';

const PASSWORD = 'a long enough password';

/** One sign-in attempt through the form, as a browser behind the proxy at `client` makes it. */
async function attempt(api: string, email: string, password: string, client?: string) {
  const b = browser(api);
  const xff: Record<string, string> = client ? { 'x-forwarded-for': client } : {};
  const ask = await b.go('GET', '/app/sign-in', undefined, xff);
  return b.go('POST', '/app/sign-in', { form: formOf(ask.html), email, password }, xff);
}

test('behind a trusted proxy: the pair is stopped after five, the account slows down, the owner gets in from elsewhere', async (t) => {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const d = await startTestDaemon(t, { clock, env: { SVC_TRUSTED_PROXIES: '127.0.0.1' } });
  const ws = await d.daemon.service.workspaces.create('acme');
  await signedInAs(d, ws, 'ann@acme.test', 'owner');
  const attacker = '203.0.113.9';
  for (let i = 0; i < SIGN_IN_PER_ACCOUNT_AND_ADDRESS; i++)
    assert.equal((await attempt(d.api, 'ann@acme.test', `guess ${i}`, attacker)).status, 401);
  const stopped = await attempt(d.api, 'ann@acme.test', 'guess again', attacker);
  assert.equal(stopped.status, 429);
  // The owner, elsewhere, at once: the account only slows down (seconds, not a quarter of an hour).
  const owner = '198.51.100.7';
  const slowed = await attempt(d.api, 'ann@acme.test', PASSWORD, owner);
  assert.equal(slowed.status, 429);
  assert.match(slowed.html, /too many sign-in attempts: try again in \d+ seconds?\./);
  assert.ok(Number(slowed.headers.get('retry-after')) <= 60);
  clock.advance(61_000);
  assert.equal((await attempt(d.api, 'ann@acme.test', PASSWORD, owner)).status, 303, 'the owner gets in');
  // The attacker's address stays stopped for that account for the window.
  const still = await attempt(d.api, 'ann@acme.test', PASSWORD, attacker);
  assert.equal(still.status, 429);
  assert.match(still.html, /try again in 1[45] minutes/);
  // Every address has its own allowance: one address's many tries do not stop another's.
  const sprayer = '192.0.2.44';
  for (let i = 0; i < SIGN_IN_PER_ADDRESS; i++) {
    clock.advance(1_000);
    assert.equal((await attempt(d.api, `nobody${i}@acme.test`, 'x', sprayer)).status, 401);
  }
  assert.equal((await attempt(d.api, 'other@acme.test', 'x', sprayer)).status, 429);
  clock.advance(61_000);
  assert.equal((await attempt(d.api, 'ann@acme.test', PASSWORD, '198.51.100.8')).status, 303);
});

test('without --trusted-proxy, X-Forwarded-For is not believed: every attempt is the connection’s own address', async (t) => {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const d = await startTestDaemon(t, { clock });
  for (let i = 0; i < SIGN_IN_PER_ADDRESS; i++) {
    clock.advance(1_000);
    assert.equal((await attempt(d.api, `nobody${i}@acme.test`, 'x', `203.0.113.${i}`)).status, 401);
  }
  assert.equal((await attempt(d.api, 'x@acme.test', 'x', '203.0.113.200')).status, 429, 'one address, whatever the header says');
});
