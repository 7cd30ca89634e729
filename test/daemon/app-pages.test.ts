// The web app's other pages through the real daemon: domains (the five records with
// their statuses, "Check now" against a real DNS server, the plan's limit), webhooks (the secret
// shown once and working, the delivery log, a replay), the workspace (every quota, a trial's
// dates) and the message log with a message's timeline. Roles on every page (a member reads the
// workspace and messages, gets 403 on domains and webhooks), workspaces apart (404). Both backends.
import { test } from 'node:test';
import { until } from '../helpers/until.js';
import assert from 'node:assert/strict';
import { sending, settled } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { receiver } from '../helpers/webhook-receiver.js';
import { formOf, signedInAs } from '../helpers/app-browser.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: web app pages: domains, webhooks, workspace, messages; roles and workspaces apart`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, {
      plan: 'trial',
      env: { SVC_ALLOW_INSECURE_WEBHOOKS: '1' },
      ...(pgUrl ? { store: pgLocation(pgUrl) } : {}),
    });
    const { service } = s.daemon;
    const owner = await signedInAs(s, s.ws, 'ann@acme.test', 'owner');
    const member = await signedInAs(s, s.ws, 'mo@acme.test', 'member');

    // Domains: five records, each with its status and a value to copy; Check now asks the DNS.
    const domains = await owner.go('GET', '/app/w/acme/domains');
    assert.equal(domains.status, 200);
    assert.match(domains.html, /<h2 id="d-[^"]+">acme\.test: verified<\/h2>/);
    assert.equal(
      domains.html.match(/<h3>(Ownership|Replies \(MX\)|SPF|DKIM|DMARC): (TXT|MX) record · <strong>Verified<\/strong><\/h3>/g)!.length,
      5,
    );
    assert.match(domains.html, /aria-label="Value of the dkim record of acme\.test" value="v=DKIM1; k=rsa; p=/);
    assert.match(domains.html, /<strong>Verified<\/strong>/);
    assert.match(domains.html, /data-copy hidden>Copy<\/button>/);
    const checked = await owner.go('POST', '/app/w/acme/domains/acme.test/check', { form: formOf(domains.html) });
    assert.equal(checked.status, 200);
    assert.match(checked.html, /acme\.test: every required record is right\./);
    // The trial's one domain: a second is 402 with the quota's sentence; nothing added.
    const second = await owner.go('POST', '/app/w/acme/domains', { form: formOf(domains.html), domain: 'second.test' });
    assert.equal(second.status, 402);
    assert.match(second.html, /Problem: /);
    assert.equal((await service.domains.list(s.ws)).length, 1);
    assert.equal((await owner.go('POST', '/app/w/acme/domains/nope.test/check', { form: formOf(domains.html) })).status, 404);

    // Webhooks: an endpoint added, its secret shown once; deliveries listed; a replay.
    const r = await receiver(t);
    const hooks = await owner.go('GET', '/app/w/acme/webhooks');
    assert.match(hooks.html, /No endpoint yet\./);
    const added = await owner.go('POST', '/app/w/acme/webhooks', { form: formOf(hooks.html), url: r.url, events: '' });
    assert.equal(added.status, 201);
    const secret = /aria-label="The signing secret" value="(whsec_[^"]+)"/.exec(added.html)![1]!;
    r.secret = secret;
    assert.doesNotMatch((await owner.go('GET', '/app/w/acme/webhooks')).html, new RegExp(secret), 'shown once');
    const bad = await owner.go('POST', '/app/w/acme/webhooks', { form: formOf(hooks.html), url: 'ftp://example.test/x', events: '' });
    assert.equal(bad.status, 400);
    const sent = await s.post({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Hello', body_html: '<p>Hi</p>' });
    await settled(s, sent.body.id);
    await r.waitFor(1);
    assert.equal(r.received[0]!.verified, true, 'signed with the secret the page showed');
    let log = await owner.go('GET', '/app/w/acme/webhooks');
    for (let i = 0; i < 50 && !/delivered, 200/.test(log.html); i++) {
      await new Promise((res) => setTimeout(res, 100));
      log = await owner.go('GET', '/app/w/acme/webhooks');
    }
    assert.match(log.html, /message\.sent<\/td>/);
    const replay = /action="(\/app\/w\/acme\/webhooks\/deliveries\/[^"]+\/replay)"/.exec(log.html)![1]!;
    const replayed = await owner.go('POST', replay, { form: formOf(log.html) });
    assert.equal(replayed.status, 200);
    assert.match(replayed.html, /Replayed:<\/strong> message\.sent to \S+: delivered \(200\)/);
    await r.waitFor(2);

    // Workspace: every quota, the trial's dates; a member reads it.
    const ws = await member.go('GET', '/app/w/acme/workspace');
    assert.equal(ws.status, 200);
    for (const label of [
      'API and SMTP sends per day',
      'API and SMTP sends per month',
      'Replies from the inbox per day',
      'AI actions per month',
      'AI actions per day',
      'Domains',
      'Sender addresses',
      'Newsletter contacts',
      'Team members',
      'Stored mail',
    ]) {
      assert.match(ws.html, new RegExp(`<th scope="row">${label.replace(/[()]/g, '\\$&')}</th>`), label);
    }
    assert.match(ws.html, /1 of 1 <strong>\(reached\)<\/strong>/, 'the one domain');
    assert.doesNotMatch(ws.html, /Change the plan/, 'owners only');
    // Without --upgrade-url the plan is the operator's to change: the page (every quota refusal's
    // upgrade_url) says so rather than linking to a page that does not exist.
    const ownerView = (await owner.go('GET', '/app/w/acme/workspace')).html;
    assert.match(
      ownerView,
      /<p id="plan">Plan: .*The plan is changed by the operator of this svc \(<code>svc workspaces set-plan acme PLAN<\/code>\)/,
    );
    assert.doesNotMatch(ownerView, /Change the plan/);
    const dates = await service.workspaces.show('acme');
    assert.match(ws.html, new RegExp(`deleted on <strong>${dates.delete_at!.slice(0, 16).replace('T', ' ')} UTC`));

    // Messages: the log and a message's timeline; a member reads them.
    const messages = await member.go('GET', '/app/w/acme/messages?status=sent');
    assert.match(messages.html, /1 message, newest first\./);
    const one = await member.go('GET', `/app/w/acme/messages/${sent.body.id}`);
    assert.equal(one.status, 200);
    assert.match(one.html, /<strong>accepted<\/strong>: from hello@acme\.test to jane@rcpt\.test/);
    assert.match((await member.go('GET', '/app/w/acme/messages?to=nobody')).html, /0 messages/);

    // A member may not manage domains or webhooks; another workspace is 404, and so is its message.
    for (const path of ['/app/w/acme/domains', '/app/w/acme/webhooks']) assert.equal((await member.go('GET', path)).status, 403, path);
    assert.equal((await member.go('POST', '/app/w/acme/domains/acme.test/check', { form: formOf(ws.html) })).status, 403);
    const other = await service.workspaces.create('other', 'scale');
    const stranger = await signedInAs(s, other, 'sam@other.test', 'owner');
    for (const path of ['/app/w/acme/workspace', '/app/w/acme/messages', '/app/w/acme/domains'])
      assert.equal((await stranger.go('GET', path)).status, 404, path);
    assert.equal((await stranger.go('GET', `/app/w/other/messages/${sent.body.id}`)).status, 404);

    // Deleting the workspace: owners only, its name typed to confirm; then gone for everyone at once
    // and its data removed by the daemon.
    const admin = await signedInAs(s, await service.workspaces.setPlan('acme', 'scale'), 'ada@acme.test', 'admin');
    const adminWs = await admin.go('GET', '/app/w/acme/workspace');
    assert.doesNotMatch(adminWs.html, /Delete this workspace/, 'owners only');
    assert.equal(
      (await admin.go('POST', '/app/w/acme/delete', { form: formOf(adminWs.html), confirm: 'acme' })).status,
      403,
      'admin cannot delete the workspace',
    );
    assert.equal((await member.go('POST', '/app/w/acme/delete', { form: formOf(ws.html), confirm: 'acme' })).status, 403);
    assert.equal((await stranger.go('POST', '/app/w/acme/delete', { form: formOf(ws.html), confirm: 'acme' })).status, 404);
    const mine = await owner.go('GET', '/app/w/acme/workspace');
    assert.match(mine.html, /<h2 id="delete">Delete this workspace<\/h2>/);
    assert.equal((await owner.go('POST', '/app/w/acme/delete', { form: 'forged', confirm: 'acme' })).status, 403, 'the form token');
    const typo = await owner.go('POST', '/app/w/acme/delete', { form: formOf(mine.html), confirm: 'acm' });
    assert.equal(typo.status, 400);
    assert.match(typo.html, /Problem: to delete the workspace, type its name, acme, exactly\./);
    assert.ok(await service.workspaces.byName('acme'), 'nothing changed');
    assert.equal((await s.get('/api/v2/me')).status, 200);
    const done = await owner.go('POST', '/app/w/acme/delete', { form: formOf(mine.html), confirm: 'acme' });
    assert.equal(done.status, 200);
    assert.match(done.html, /The workspace acme is deleted/);
    assert.equal((await s.get('/api/v2/me')).status, 401, 'its key stopped at once');
    assert.notEqual((await admin.go('GET', '/app/w/acme/workspace')).status, 200);
    assert.notEqual((await owner.go('GET', '/app/w/acme/workspace')).status, 200);
    for (const deadline = Date.now() + 120_000; (await service.store.workspaces.deletions()).length;) {
      assert.ok(Date.now() < deadline, 'its data was removed within 120 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(await service.store.messages.byIds([sent.body.id]), []);
    assert.ok(
      s.logs.some((l) => /workspace acme deleted \(owner:ann@acme\.test\)/.test(l)),
      s.logs.join('\n'),
    );
    // The line follows the store's last removal: waited for, then counted.
    await until(
      'the deletion line',
      async () => s.logs.filter((l) => /workspace acme: its data is deleted/.test(l)).length,
      (n) => n > 0,
      180_000,
    );
    assert.equal(s.logs.filter((l) => /workspace acme: its data is deleted/.test(l)).length, 1);
    assert.ok(await service.workspaces.byName('other'), 'another workspace is kept');
  });
}
