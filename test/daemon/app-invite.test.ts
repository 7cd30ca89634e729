// Invitations and svc's own mail through the real daemon. With a system sender, adding a
// person in the app mails them an invitation through the one pipeline (source system, not counted
// against the plan) whose link works; a person with a password already gets a note to sign in, no
// link. Without one, the link is shown only for an account the add made: an admin of one workspace
// never gets a link to an account someone else already uses. Both backends.
import { test } from 'node:test';
import { until } from '../helpers/until.js';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { browser, formOf, signedInAs } from '../helpers/app-browser.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: web app invitations: mailed from the system sender, not counted, the link works; an existing account gets no link`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, {
      plan: 'pro',
      env: { SVC_SYSTEM_SENDER: 'hello@acme.test' },
      ...(pgUrl ? { store: pgLocation(pgUrl) } : {}),
    });
    const { service } = s.daemon;
    const ann = await signedInAs(s, s.ws, 'ann@acme.test', 'owner');
    await service.people.create(s.ws, { email: 'ann-name@rcpt.test', role: 'member', name: 'Ann Lee' });
    const usedBefore = (await service.workspaces.usage('acme')).quotas.find((q) => q.kind === 'api_sends' && q.window === 'day')!.used;
    const mailedBefore = s.sink.received.length;

    const members = await ann.go('GET', '/app/w/acme/people');
    const added = await ann.go('POST', '/app/w/acme/people', { form: formOf(members.html), email: 'zed@rcpt.test', role: 'member' });
    assert.equal(added.status, 201);
    assert.match(added.html, /They were mailed an invitation\./);
    assert.doesNotMatch(added.html, /\/app\/sign-in\//, 'no link on the page');
    await s.sink.waitFor(mailedBefore + 2);
    const invite = s.sink.received.find((r) => r.to.includes('zed@rcpt.test'))!;
    const raw = invite.raw.toString();
    assert.match(raw, /Subject: ann@acme\.test added you to acme on svc/);
    assert.match(raw, /^DKIM-Signature: /m, 'signed like any other mail');
    const link = /https?:\/\/\S+\/app\/sign-in\/[A-Za-z0-9_-]{43}/.exec(raw.replace(/=\r\n/g, ''))![0];
    // Not counted against the plan; recorded as the service's own mail.
    assert.equal(
      (await service.workspaces.usage('acme')).quotas.find((q) => q.kind === 'api_sends' && q.window === 'day')!.used,
      usedBefore,
    );
    const record = (await s.get('/api/v2/messages?to=zed@rcpt.test')).body.data[0];
    assert.match(JSON.stringify(await service.explain(s.ws, record.id)), /service's own mail/);

    // The mailed link signs Zed in.
    const zed = browser(s.api);
    const path = new URL(link).pathname;
    const ask = await zed.go('GET', path);
    assert.equal(ask.status, 200);
    assert.equal((await zed.go('POST', path, { form: formOf(ask.html), password: 'zed chose this one' })).status, 303);
    assert.match((await zed.go('GET', '/app/')).html, /<td>acme<\/td><td>member<\/td>/);

    // Someone with a password already: a note to sign in, no link anywhere.
    const other = await service.workspaces.create('other', 'scale');
    await service.people.create(other, { email: 'bo@rcpt.test', role: 'owner' });
    const bo = (await service.people.reset(other, 'bo@rcpt.test')).sign_in_url;
    const boBrowser = browser(s.api);
    const boAsk = await boBrowser.go('GET', new URL(bo).pathname);
    await boBrowser.go('POST', new URL(bo).pathname, { form: formOf(boAsk.html), password: 'bo has a password' });
    const before = s.sink.received.length;
    const again = await ann.go('POST', '/app/w/acme/people', { form: formOf(members.html), email: 'bo@rcpt.test', role: 'member' });
    assert.equal(again.status, 201);
    // The note to bo about acme (another mail to bo, of the workspace other, may arrive meanwhile).
    const note = await until(
      "bo's note about acme",
      async () =>
        s.sink.received
          .slice(before)
          .map((r) => r.raw.toString())
          .find((raw) => /^Subject: .*\bacme\b/m.test(raw) && toOf(raw) === 'bo@rcpt.test'),
      (v) => v !== undefined,
    );
    assert.match(note!, /Sign in with your email and password/);
    assert.doesNotMatch(note!, /\/app\/sign-in\/[A-Za-z0-9_-]{43}/);
  });

  test(`${backend}: web app without a system sender: the link is shown for a new account only; an account someone uses is never handed over`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { plan: 'scale', ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    // Ann is owner of acme with a password; Mallory is admin of another workspace.
    await signedInAs(s, s.ws, 'ann@acme.test', 'owner');
    const evil = await service.workspaces.create('evil', 'scale');
    const mallory = await signedInAs(s, evil, 'mallory@evil.test', 'owner');
    const page = await mallory.go('GET', '/app/w/evil/people');
    const fresh = await mallory.go('POST', '/app/w/evil/people', { form: formOf(page.html), email: 'new@evil.test', role: 'member' });
    assert.match(fresh.html, /aria-label="Their sign-in link" value="[^"]*\/app\/sign-in\//, 'a new account: its link shown');
    const taken = await mallory.go('POST', '/app/w/evil/people', { form: formOf(page.html), email: 'ann@acme.test', role: 'member' });
    assert.equal(taken.status, 201);
    assert.doesNotMatch(taken.html, /\/app\/sign-in\/[A-Za-z0-9_-]{43}/, "no link to Ann's account");
    assert.match(taken.html, /They have an account already/);
    // A pending account (no password yet) made by acme: evil adding it gets no link either.
    await service.people.create(s.ws, { email: 'pending@acme.test', role: 'member' });
    const pending = await mallory.go('POST', '/app/w/evil/people', {
      form: formOf(page.html),
      email: 'pending@acme.test',
      role: 'member',
    });
    assert.doesNotMatch(pending.html, /\/app\/sign-in\/[A-Za-z0-9_-]{43}/);
  });
}

/** The To: of a raw message. */
function toOf(raw: string): string | undefined {
  return /^To: (.*)$/m.exec(raw)?.[1]?.trim();
}
