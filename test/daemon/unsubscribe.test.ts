// The per-subscriber unsubscribe URL (CONTRACT.md "Tracking and unsubscribe", RFC 8058): GET shows
// a plain confirmation page and changes nothing (a link scanner unsubscribes nobody); POST as a
// mailbox provider sends it (form-encoded or multipart `List-Unsubscribe=One-Click`, no cookie, no
// key) unsubscribes, suppresses and answers the done page, again the same; a forged or altered
// token, or one of a removed list, is 404 with the same page shape. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: unsubscribe URL: GET confirms, one-click POST unsubscribes and suppresses, forged tokens 404`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const list = await service.lists.create(s.ws, { name: 'News <weekly> & "more"' });
    const jane = await service.lists.subscribe(s.ws, list.id, { email: 'jane@rcpt.test' });
    const bob = await service.lists.subscribe(s.ws, list.id, { email: 'bob@rcpt.test' });
    const url = service.lists.unsubscribeUrl(jane);
    assert.equal(url, `${service.deps.config.baseUrl}/u/${jane.unsubscribe_token}`);
    const at = (u: string) => `${s.api}${new URL(u).pathname}`;
    const status = async (id: string) => (await service.lists.subscriber(s.ws, list.id, id)).status;

    // GET: the confirmation page, nothing changed.
    const shown = await fetch(at(url));
    const html = await shown.text();
    assert.equal(shown.status, 200);
    assert.match(shown.headers.get('content-type')!, /^text\/html; charset=utf-8/);
    assert.match(shown.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.equal(shown.headers.get('cache-control'), 'no-store');
    assert.match(
      html,
      /<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe<\/button><\/form>/,
    );
    assert.match(html, /News &#60;weekly&#62; &#38; &#34;more&#34;/);
    assert.doesNotMatch(html, /<script|src=|https?:\/\//);
    assert.equal(await status(jane.id), 'active');

    // One-click POST as a mailbox provider sends it: done, unsubscribed, suppressed; again the same.
    const oneClick = () =>
      fetch(at(url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
    const done = await oneClick();
    assert.equal(done.status, 200);
    assert.match(await done.text(), /<h1>You are unsubscribed<\/h1>/);
    assert.equal(await status(jane.id), 'unsubscribed');
    assert.deepEqual(
      (await service.store.suppressions.find(s.ws.id, ['jane@rcpt.test'])).map((x) => x.reason),
      ['unsubscribe'],
    );
    assert.equal((await oneClick()).status, 200);
    assert.match(await (await fetch(at(url))).text(), /You are unsubscribed/);
    // Multipart, as some providers post it.
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    assert.equal((await fetch(at(service.lists.unsubscribeUrl(bob)), { method: 'POST', body: form })).status, 200);
    assert.equal(await status(bob.id), 'unsubscribed');

    // Forged, altered, malformed: 404 with the same page shape; nothing changes.
    const carol = await service.lists.subscribe(s.ws, list.id, { email: 'carol@rcpt.test' });
    const altered = carol.unsubscribe_token.slice(0, -1) + (carol.unsubscribe_token.endsWith('A') ? 'B' : 'A');
    for (const token of [altered, 'x'.repeat(43), 'short', '%0d%0aSet-Cookie:x']) {
      for (const method of ['GET', 'POST']) {
        const r = await fetch(`${s.api}/u/${token}`, {
          method,
          ...(method === 'POST'
            ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }
            : {}),
        });
        assert.equal(r.status, 404, `${method} ${token}`);
        assert.match(await r.text(), /<h1>Link not valid<\/h1>/);
        assert.equal(r.headers.get('set-cookie'), null);
      }
    }
    assert.equal(await status(carol.id), 'active');
    // A removed list's tokens are gone with it.
    await service.lists.remove(s.ws, list.id);
    assert.equal((await fetch(at(service.lists.unsubscribeUrl(carol)), { method: 'POST' })).status, 404);
  });
}
