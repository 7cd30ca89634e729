// The web app through the real daemon (CONTRACT.md "The web app"). Sign-in: a one-time
// link sets the password and signs in; email and password afterwards; a wrong password and the
// lock-out; sign-out; sessions ended by `reset` and `remove`; forms refused without their token or
// from another site; no CORS on /app/; the pages' headers. The keys page: created keys shown once,
// revoked at once; roles (a member gets 403) and workspaces apart (404). Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestDaemon } from '../helpers/daemon.js';
import { sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { SIGN_IN_PER_ACCOUNT_AND_ADDRESS } from '../../src/people/sign-in.js';
import { browser, formOf, signedInAs } from '../helpers/app-browser.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: web app sign-in: link, password, wrong password, lock-out, sign-out, revocation, CSRF and cross-site refusals`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const d = await startTestDaemon(t, pgUrl ? { store: pgLocation(pgUrl) } : {});
    const { service } = d.daemon;
    const ws = await service.workspaces.create('acme');
    const ann = await service.people.create(ws, { email: 'ann@acme.test', role: 'owner', name: 'Ann <Lee>' });
    const path = new URL(ann.sign_in_url!).pathname;
    assert.match(path, /^\/app\/sign-in\/[A-Za-z0-9_-]{43}$/);

    const b = browser(d.api);
    // Not signed in: /app/ sends to the sign-in page.
    assert.deepEqual([(await b.go('GET', '/app/')).status, (await b.go('GET', '/app/')).location], [303, '/app/sign-in']);
    // The link's page asks first (a mail scanner's GET uses nothing up), with strict headers.
    const ask = await b.go('GET', path);
    assert.equal(ask.status, 200);
    assert.match(ask.html, /Choose your password/);
    assert.match(ask.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.equal(ask.headers.get('x-frame-options'), 'DENY');
    assert.ok(
      ask.cookies.some((c) => /^svc_form=.*HttpOnly.*SameSite=Strict/i.test(c)),
      ask.cookies.join(' | '),
    );
    const again = await b.go('GET', path);
    assert.equal(again.status, 200, 'still valid after a look');
    const short = await b.go('POST', path, { form: formOf(again.html), password: 'short' });
    assert.equal(short.status, 400);
    assert.match(short.html, /Problem: a password has at least 10 characters/);
    // Without the form's token, or from another site: refused, nothing used up.
    const forged = await b.go('POST', path, { form: 'forged', password: 'correct horse battery' });
    assert.equal(forged.status, 403);
    assert.match(forged.html, /Problem: this form expired or did not come from this page/);
    assert.equal(
      (await b.go('POST', path, { form: formOf(forged.html), password: 'correct horse battery' }, { origin: 'https://evil.test' })).status,
      403,
    );
    assert.equal(
      (await b.go('POST', path, { form: formOf(forged.html), password: 'correct horse battery' }, { 'sec-fetch-site': 'cross-site' }))
        .status,
      403,
    );
    assert.equal(
      (await b.go('POST', path, { form: formOf(forged.html), password: 'correct horse battery' }, { origin: 'null' })).status,
      403,
    );
    assert.equal(ask.headers.get('referrer-policy'), 'same-origin');
    const set = await b.go('POST', path, { form: formOf(forged.html), password: 'correct horse battery' });
    assert.deepEqual([set.status, set.location], [303, '/app/']);
    const sessionCookie = set.cookies.find((c) => c.startsWith('svc_session='))!;
    assert.match(sessionCookie, /HttpOnly/i);
    assert.match(sessionCookie, /SameSite=Lax/i);
    assert.match(sessionCookie, /Path=\/app\//i);
    assert.doesNotMatch(sessionCookie, /Secure/i, 'not Secure on an http base URL');
    const home = await b.go('GET', '/app/');
    assert.equal(home.status, 200);
    assert.match(home.html, /Signed in as Ann &#60;Lee&#62; &#60;ann@acme\.test&#62;/, 'escaped');
    assert.match(home.html, /<td>acme<\/td><td>owner<\/td>/);
    assert.equal((await b.go('GET', path)).status, 404, 'the link works once');
    assert.ok((await service.people.list(ws))[0]!.last_sign_in_at);

    // No CORS on the app, even asked from another origin (the API keeps its open rule).
    const cors = await b.go('GET', '/app/', undefined, { origin: 'https://evil.test' });
    assert.equal(cors.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(`${d.api}/app/sign-in`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    // Nor on its other answers: a script, a redirect, a preflight of /app itself, an unknown app path.
    const evil = { origin: 'https://evil.test' };
    for (const [method, path] of [
      ['GET', '/app/app.js'],
      ['GET', '/app?x=1'],
      ['OPTIONS', '/app'],
      ['POST', '/app'],
      ['GET', '/app/no-such-page'],
      ['OPTIONS', '/app/no-such-page'],
      ['DELETE', '/app/sign-in'],
    ] as const) {
      const r = await fetch(`${d.api}${path}`, {
        method,
        redirect: 'manual',
        headers: method === 'OPTIONS' ? { ...evil, 'access-control-request-method': 'POST' } : evil,
      });
      assert.equal(r.headers.get('access-control-allow-origin'), null, `${method} ${path}`);
      if (path.includes('no-such') || method === 'DELETE' || (method === 'POST' && path === '/app'))
        assert.deepEqual([r.status, await r.json()], [404, { error: 'not found' }], `${method} ${path}`);
    }
    const apiPreflight = await fetch(`${d.api}/api/v2/emails`, {
      method: 'OPTIONS',
      headers: { ...evil, 'access-control-request-method': 'POST' },
    });
    assert.deepEqual([apiPreflight.status, apiPreflight.headers.get('access-control-allow-origin')], [204, '*']);
    assert.equal((await fetch(`${d.api}/api/v2/no-such-thing`, { headers: evil })).headers.get('access-control-allow-origin'), '*');
    assert.equal(
      (await fetch(`${d.api}/healthz`, { headers: { origin: 'https://evil.test' } })).headers.get('access-control-allow-origin'),
      '*',
    );

    // Sign-out needs the page's token; then the session is gone.
    assert.equal((await b.go('POST', '/app/sign-out', { form: 'forged' })).status, 403);
    const out = await b.go('POST', '/app/sign-out', { form: formOf(home.html) });
    assert.deepEqual([out.status, out.location], [303, '/app/sign-in']);
    assert.equal((await b.go('GET', '/app/')).status, 303);

    // Email and password: wrong, then right.
    const signInPage = await b.go('GET', '/app/sign-in');
    const wrong = await b.go('POST', '/app/sign-in', {
      form: formOf(signInPage.html),
      email: 'ann@acme.test',
      password: 'not the password',
    });
    assert.equal(wrong.status, 401);
    assert.match(wrong.html, /Problem: wrong email or password\./);
    assert.match(wrong.html, /value="ann@acme\.test"/);
    const nobody = await b.go('POST', '/app/sign-in', { form: formOf(wrong.html), email: 'zed@acme.test', password: 'not the password' });
    assert.equal(nobody.status, 401, 'the same answer for an unknown email');
    const forgedSignIn = await b.go('POST', '/app/sign-in', { form: 'forged', email: 'ann@acme.test', password: 'correct horse battery' });
    assert.equal(forgedSignIn.status, 403);
    const right = await b.go('POST', '/app/sign-in', {
      form: formOf(forgedSignIn.html),
      email: 'ANN@acme.test',
      password: 'correct horse battery',
    });
    assert.deepEqual([right.status, right.location], [303, '/app/']);
    assert.equal((await b.go('GET', '/app/')).status, 200);

    // `svc users reset` ends the session at once; so does removal (another person's browser).
    await service.people.reset(ws, 'ann@acme.test');
    assert.equal((await b.go('GET', '/app/')).status, 303);
    const bob = await service.people.create(ws, { email: 'bob@acme.test', role: 'member' });
    const bb = browser(d.api);
    const bobAsk = await bb.go('GET', new URL(bob.sign_in_url!).pathname);
    await bb.go('POST', new URL(bob.sign_in_url!).pathname, { form: formOf(bobAsk.html), password: 'bob has a long password' });
    assert.equal((await bb.go('GET', '/app/')).status, 200);
    await service.people.remove(ws, 'bob@acme.test');
    assert.equal((await bb.go('GET', '/app/')).status, 303);

    // Attempts per account from one address are limited, with a sentence and Retry-After.
    const lb = browser(d.api);
    let last = await lb.go('GET', '/app/sign-in');
    for (let i = 0; i < SIGN_IN_PER_ACCOUNT_AND_ADDRESS; i++) {
      last = await lb.go('POST', '/app/sign-in', { form: formOf(last.html), email: 'carol@acme.test', password: `guess number ${i}` });
      assert.equal(last.status, 401);
    }
    const locked = await lb.go('POST', '/app/sign-in', { form: formOf(last.html), email: 'carol@acme.test', password: 'guess again' });
    assert.equal(locked.status, 429);
    assert.match(locked.html, /Problem: too many sign-in attempts: try again in 15 minutes\./);
    assert.ok(Number(locked.headers.get('retry-after')) > 0);
  });
}

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: web app keys page: owners and admins create (shown once) and revoke; members 403; other workspaces 404`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const d = await startTestDaemon(t, pgUrl ? { store: pgLocation(pgUrl) } : {});
    const { service } = d.daemon;
    const acme = await service.workspaces.create('acme');
    const beta = await service.workspaces.create('beta');
    await service.keys.create(beta, { name: 'beta key' });
    const signedIn = (ws: typeof acme, email: string, role: string) => signedInAs(d, ws, email, role);
    const admin = await signedIn(acme, 'ann@acme.test', 'admin');
    const home = await admin.go('GET', '/app/');
    assert.match(home.html, /<a href="\/app\/w\/acme\/keys">API keys<\/a>/);
    const page = await admin.go('GET', '/app/w/acme/keys');
    assert.equal(page.status, 200);
    assert.match(page.html, /No keys yet\./);
    const created = await admin.go('POST', '/app/w/acme/keys', { form: formOf(page.html), name: 'CI <deploy>', scope: 'send' });
    assert.equal(created.status, 201);
    const key = /aria-label="The new key" value="(svc_[0-9a-f]{48})"/.exec(created.html)?.[1];
    assert.ok(key, 'the key is shown once');
    assert.match(created.html, /CI &#60;deploy&#62;/);
    assert.equal(created.headers.get('cache-control'), 'no-store');
    // The key works on the API, with the scope chosen.
    assert.equal((await fetch(`${d.api}/api/v2/me`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    const again = await admin.go('GET', '/app/w/acme/keys');
    assert.ok(!again.html.includes(key!), 'never shown again');
    const listed = await service.keys.list(acme);
    assert.deepEqual(
      listed.map((k) => [k.name, k.scopes]),
      [['CI <deploy>', ['send']]],
    );
    // Bad input: a page that says why, nothing created.
    assert.match(
      (await admin.go('POST', '/app/w/acme/keys', { form: formOf(again.html), name: 'x' })).html,
      /Problem: choose at least one scope\./,
    );
    assert.match(
      (await admin.go('POST', '/app/w/acme/keys', { form: formOf(again.html), name: 'x', scope: 'root' })).html,
      /Problem: unknown scope &#39;root&#39; \(use send, read, newsletter, contacts, \*\)\./,
    );
    assert.equal((await admin.go('POST', '/app/w/acme/keys', { form: 'forged', name: 'x', scope: 'send' })).status, 403);
    assert.equal(
      (await admin.go('POST', '/app/w/acme/keys', { form: formOf(again.html), name: 'x', scope: 'send' }, { origin: 'https://evil.test' }))
        .status,
      403,
    );
    assert.equal((await service.keys.list(acme)).length, 1);
    // Another workspace's page, or its key's id: 404, nothing revoked.
    assert.equal((await admin.go('GET', '/app/w/beta/keys')).status, 404);
    const betaKey = (await service.keys.list(beta))[0]!;
    assert.equal((await admin.go('POST', `/app/w/acme/keys/${betaKey.id}/revoke`, { form: formOf(again.html) })).status, 404);
    assert.equal((await service.keys.list(beta))[0]!.revoked_at, null);
    // Revoke: the key stops working at once.
    const revoke = await admin.go('POST', `/app/w/acme/keys/${listed[0]!.id}/revoke`, { form: formOf(again.html) });
    assert.deepEqual([revoke.status, revoke.location], [303, '/app/w/acme/keys']);
    assert.equal((await fetch(`${d.api}/api/v2/me`, { headers: { authorization: `Bearer ${key}` } })).status, 401);
    // A member may not manage keys.
    const member = await signedIn(acme, 'bob@acme.test', 'member');
    assert.doesNotMatch((await member.go('GET', '/app/')).html, /API keys/);
    const refused = await member.go('GET', '/app/w/acme/keys');
    assert.equal(refused.status, 403);
    assert.match(refused.html, /only owners and admins may do this in a workspace; you are a member of acme\./);
    assert.equal((await member.go('POST', '/app/w/acme/keys', { form: 'x', name: 'x', scope: 'send' })).status, 403);
    // Signed out: to the sign-in page.
    assert.deepEqual([(await browser(d.api).go('GET', '/app/w/acme/keys')).status], [303]);
  });
}

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: web app people page: add (link shown once, seats 402), roles (only owners give owner; the last owner stays), remove`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const d = await startTestDaemon(t, pgUrl ? { store: pgLocation(pgUrl) } : {});
    const { service } = d.daemon;
    const acme = await service.workspaces.create('acme', 'starter');
    const signedIn = (email: string, role: string) => signedInAs(d, acme, email, role);
    const owner = await signedIn('ann@acme.test', 'owner');
    const admin = await signedIn('adam@acme.test', 'admin');
    assert.match((await admin.go('GET', '/app/')).html, /<a href="\/app\/w\/acme\/people">People<\/a>/);
    const page = await admin.go('GET', '/app/w/acme/people');
    assert.equal(page.status, 200);
    assert.match(page.html, /2 of 3 seats used/);
    // Every workspace page's links lead to the pages that answer (the keys page's, which link here).
    const nav = /<nav[^>]*>.*?<\/nav>/s.exec((await admin.go('GET', '/app/w/acme/keys')).html)![0];
    assert.match(nav, /href="\/app\/w\/acme\/people"/);
    for (const [, href] of nav.matchAll(/href="([^"]+)"/g)) assert.equal((await admin.go('GET', href!)).status, 200, href);
    // An admin may not make an owner.
    const noOwner = await admin.go('POST', '/app/w/acme/people', { form: formOf(page.html), email: 'cy@acme.test', role: 'owner' });
    assert.equal(noOwner.status, 403);
    assert.match(noOwner.html, /Problem: only an owner gives or takes the owner role\./);
    const added = await admin.go('POST', '/app/w/acme/people', {
      form: formOf(page.html),
      email: 'Cy@Acme.test',
      name: 'Cy <b>',
      role: 'member',
    });
    assert.equal(added.status, 201);
    const link = /aria-label="Their sign-in link" value="([^"]+)"/.exec(added.html)?.[1];
    assert.match(link!, /\/app\/sign-in\/[A-Za-z0-9_-]{43}$/);
    assert.match(added.html, /Cy &#60;b&#62; &#60;cy@acme\.test&#62;/);
    assert.ok(!(await admin.go('GET', '/app/w/acme/people')).html.includes(link!), 'the link is not shown again');
    // The starter plan's 3 seats are taken: 402 with the sentence.
    const full = await admin.go('POST', '/app/w/acme/people', { form: formOf(page.html), email: 'dee@acme.test', role: 'member' });
    assert.equal(full.status, 402);
    assert.match(full.html, /Problem: the starter plan allows 3 seats \(3 in use\); upgrade the plan or remove one\./);
    const bad = await admin.go('POST', '/app/w/acme/people', { form: formOf(page.html), email: 'not an email', role: 'member' });
    assert.equal(bad.status, 400);
    const people = await service.people.list(acme);
    const id = (email: string) => people.find((p) => p.email === email)!.id;
    // Roles: an admin may not touch the owner; the owner may; the last owner stays.
    assert.equal(
      (await admin.go('POST', `/app/w/acme/people/${id('ann@acme.test')}/role`, { form: formOf(page.html), role: 'member' })).status,
      403,
    );
    assert.equal((await admin.go('POST', `/app/w/acme/people/${id('ann@acme.test')}/remove`, { form: formOf(page.html) })).status, 403);
    const ownerPage = await owner.go('GET', '/app/w/acme/people');
    const last = await owner.go('POST', `/app/w/acme/people/${id('ann@acme.test')}/role`, { form: formOf(ownerPage.html), role: 'admin' });
    assert.equal(last.status, 409);
    assert.match(last.html, /Problem: a workspace keeps at least one owner: make another person owner first\./);
    const promote = await owner.go('POST', `/app/w/acme/people/${id('cy@acme.test')}/role`, {
      form: formOf(ownerPage.html),
      role: 'admin',
    });
    assert.deepEqual([promote.status, promote.location], [303, '/app/w/acme/people']);
    assert.equal((await service.people.list(acme)).find((p) => p.email === 'cy@acme.test')!.role, 'admin');
    assert.equal((await admin.go('POST', `/app/w/acme/people/${id('cy@acme.test')}/role`, { form: 'forged', role: 'member' })).status, 403);
    assert.equal((await admin.go('POST', '/app/w/acme/people/nobody/remove', { form: formOf(page.html) })).status, 404);
    // Removal ends the person's session at once.
    const removed = await owner.go('POST', `/app/w/acme/people/${id('adam@acme.test')}/remove`, { form: formOf(ownerPage.html) });
    assert.equal(removed.status, 303);
    assert.equal((await admin.go('GET', '/app/w/acme/people')).status, 303, 'signed out');
    // A member may not open the page.
    const member = await signedIn('eve@acme.test', 'member');
    assert.equal((await member.go('GET', '/app/w/acme/people')).status, 403);
  });
}

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: web app addresses page: add on a domain of the workspace, disable, enable, remove; the plan's limit; members 403`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { plan: 'trial', ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const admin = await signedInAs(s, s.ws, 'ann@acme.test', 'admin');
    const page = await admin.go('GET', '/app/w/acme/addresses');
    assert.equal(page.status, 200);
    assert.match(page.html, /<td>hello@acme\.test<\/td><td>active<\/td>/);
    const form = formOf(page.html);
    assert.deepEqual([(await admin.go('POST', '/app/w/acme/addresses', { form, address: 'Support@Acme.test' })).status], [303]);
    assert.deepEqual(
      (await s.daemon.service.addresses.list(s.ws)).map((a) => a.address),
      ['hello@acme.test', 'support@acme.test'],
    );
    const other = await admin.go('POST', '/app/w/acme/addresses', { form, address: 'x@elsewhere.test' });
    assert.equal(other.status, 404);
    assert.match(other.html, /Problem: elsewhere\.test is not a domain of workspace &#39;acme&#39;/);
    // The trial plan allows 3 addresses.
    await admin.go('POST', '/app/w/acme/addresses', { form, address: 'billing@acme.test' });
    const over = await admin.go('POST', '/app/w/acme/addresses', { form, address: 'fourth@acme.test' });
    assert.equal(over.status, 402);
    assert.match(over.html, /Problem: the trial plan allows 3 addresses \(3 in use\)/);
    const id = (await s.daemon.service.addresses.list(s.ws)).find((a) => a.address === 'support@acme.test')!.id;
    assert.equal((await admin.go('POST', `/app/w/acme/addresses/${id}/disable`, { form })).status, 303);
    assert.equal((await s.daemon.service.addresses.list(s.ws)).find((a) => a.id === id)!.status, 'disabled');
    // A disabled address no longer sends.
    assert.equal((await s.post({ from: 'support@acme.test', to: ['jane@rcpt.test'], subject: 'x', body_text: 'x' })).status, 403);
    assert.equal((await admin.go('POST', `/app/w/acme/addresses/${id}/enable`, { form })).status, 303);
    assert.equal((await admin.go('POST', `/app/w/acme/addresses/${id}/remove`, { form })).status, 303);
    assert.equal((await admin.go('POST', `/app/w/acme/addresses/${id}/remove`, { form })).status, 404);
    assert.equal((await admin.go('POST', `/app/w/acme/addresses/${id}/remove`, { form: 'forged' })).status, 403);
    const member = await signedInAs(s, s.ws, 'bob@acme.test', 'member');
    assert.equal((await member.go('GET', '/app/w/acme/addresses')).status, 403);
  });
}
