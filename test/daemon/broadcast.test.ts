// Broadcasts: POST /lists/:id/broadcast answers 202 with the broadcast result once the
// campaign is stored; the fan-out then gives each active, unsuppressed subscriber one copy through
// the one pipeline, personalised (merge variables escaped in HTML, its own To: and Message-ID),
// with the unsubscribe link, List-Unsubscribe (https URL and mailto: at the copy's return path) and
// List-Unsubscribe-Post signed in DKIM h=, the open pixel and tracked links. Errors change nothing;
// a broadcast over the send quota is refused whole. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending, type Sending } from '../helpers/sending.js';
import { until } from '../helpers/until.js';
import { ManualClock } from '../../src/clock.js';
import { plainMail, transact } from '../helpers/mx.js';
import { headers } from '../helpers/sink.js';
import { keyRecord, verdicts } from '../helpers/dkim-verifiers.js';
import { run } from '../helpers/run.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

const backends = ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])];
const decodeQp = (raw: string) =>
  raw.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));

for (const backend of backends) {
  test(`${backend}: a broadcast: 202 at once, one personalised, signed, tracked copy per active unsuppressed subscriber`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const clock = new ManualClock(new Date());
    const s = await sending(t, { clock, ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const base = service.deps.config.baseUrl;
    const nl = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
    const call = (method: string, path: string, body?: unknown, key = nl) => s.call(method, path, body, key);
    const list = (await call('POST', '/api/v2/lists', { name: 'News', from_address: 'hello@acme.test', from_name: 'Acme News' })).body;
    const bare = (await call('POST', '/api/v2/lists', { name: 'No sender' })).body;
    const jane = (await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'jane@rcpt.test', name: 'Jane <b>Doe' })).body;
    await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'bob@rcpt.test' });
    const carol = (await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'carol@rcpt.test', name: 'Carol' })).body;
    await call('POST', `/api/v2/lists/${list.id}/subscribers/${carol.id}/unsubscribe`);
    await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'dave@rcpt.test', name: 'Dave' });
    await service.suppressions.add(s.ws, 'dave@rcpt.test');
    const sentBefore = s.sink.received.length;

    // Errors: the spec's status and text, nothing stored.
    const html =
      '<p>Hi {{first_name|friend}} ({{ name }}), this goes to {{email}}.</p><p><a href="https://example.com/offer?a=1&amp;b=2">Offer</a> <a href="{{unsubscribe_url}}">Leave</a> {{unknown}}</p>';
    const ok = { subject: 'June {{name}} news', body_html: html, preheader: 'Three things & more' };
    const errors: Array<[unknown, number, string, string?]> = [
      [{ body_html: html }, 400, 'subject and body_html required'],
      [{ subject: 'x' }, 400, 'subject and body_html required'],
      [{ subject: 'x', body_html: '   ' }, 400, 'subject and body_html required'],
      [{ subject: 7, body_html: html }, 400, 'invalid body: subject must be a string'],
      [ok, 400, 'from_address required (list has none)', bare.id],
      [
        { ...ok, from_address: 'nobody@acme.test' },
        403,
        "from address 'nobody@acme.test' is not registered for this account. The domain acme.test is verified: add the address.",
      ],
      [
        { ...ok, from_address: 'x@elsewhere.test' },
        403,
        "from address 'x@elsewhere.test' is not registered for this account. elsewhere.test is not a domain of this account: add and verify the domain first.",
      ],
      [ok, 404, 'list not found', 'no-such-list'],
    ];
    for (const [body, status, error, id] of errors) {
      const r = await call('POST', `/api/v2/lists/${id ?? list.id}/broadcast`, body);
      assert.deepEqual([r.status, r.body.error], [status, error], JSON.stringify(body));
    }
    const forbidden = await call('POST', `/api/v2/lists/${list.id}/broadcast`, ok, s.key);
    assert.deepEqual([forbidden.status, forbidden.body.error], [403, 'missing permission: newsletter']);
    assert.deepEqual(await service.broadcasts.list(s.ws), [], 'no campaign from any refusal');

    const r = await call('POST', `/api/v2/lists/${list.id}/broadcast`, ok);
    assert.equal(r.status, 202);
    assert.deepEqual(Object.keys(r.body).sort(), ['campaign_id', 'message', 'status']);
    assert.equal(r.body.status, 'queued');
    // Dave is active (counted, and debited) but suppressed: the fan-out gives him no copy.
    assert.match(r.body.message, /^broadcast to 3 active subscribers of list 'News' queued$/);
    await s.sink.waitFor(sentBefore + 2);
    const copies = s.sink.received.slice(sentBefore);
    assert.deepEqual(
      copies.map((m) => m.to[0]).sort(),
      ['bob@rcpt.test', 'jane@rcpt.test'],
      'carol (unsubscribed) and dave (suppressed) get nothing',
    );

    // Recorded sent (the sink has them: the outcome follows), then past the window in which a click
    // is a security scanner's, not the reader's.
    await until(
      'both copies recorded sent',
      async () => (await s.get('/api/v2/messages?status=sent')).body.total,
      (n) => n >= 2,
      undefined,
      20,
    );
    clock.advance(120_000);
    const ids = new Set<string>();
    for (const mail of copies) {
      const to = mail.to[0]!;
      const h = headers(mail.raw);
      const raw = mail.raw.toString('utf8');
      assert.equal(h.get('to')!.length, 1);
      assert.ok(
        h.get('to')![0]!.includes(to) && !h.get('to')![0]!.includes(to === 'bob@rcpt.test' ? 'jane' : 'bob'),
        'To: shows only its own recipient',
      );
      assert.equal(h.get('subject')![0], 'June {{name}} news', 'the subject is sent as written');
      ids.add(h.get('message-id')![0]!);
      // List-Unsubscribe: the subscriber's URL and a mailto: at this copy's own return path.
      const sub = (await service.lists.subscribers(s.ws, list.id, {})).data.find((x: { email: string }) => x.email === to)!;
      const url = `${base}/u/${sub.unsubscribe_token}`;
      const lu = h.get('list-unsubscribe')![0]!;
      assert.equal(lu, `<${url}>, <mailto:${mail.from}?subject=unsubscribe>`);
      assert.match(mail.from, /^bounces\+[0-9a-f]{32}@acme\.test$/);
      assert.equal(h.get('list-unsubscribe-post')![0], 'List-Unsubscribe=One-Click');
      // List mail: vacation programs and filters leave it alone (RFC 2919, RFC 3834).
      assert.equal(h.get('list-id')![0], `<${list.id}.list.acme.test>`);
      assert.equal(h.get('precedence')![0], 'bulk');
      const signature = h.get('dkim-signature')![0]!.replace(/\s+/g, '');
      const signed = /;h=([^;]+)/.exec(signature)![1]!.toLowerCase().split(':');
      // Signed, and the unsubscribe fields over-signed (named once more than they occur).
      for (const f of ['list-unsubscribe', 'list-unsubscribe-post']) assert.equal(signed.filter((x) => x === f).length, 2, signature);
      assert.ok(signed.includes('list-id') && signed.includes('precedence'), signature);
      // Three verifiers: the copy passes; an unsubscribe field added on the way breaks it.
      const txt = await keyRecord(mail.raw, s.dns.server);
      const tampered = (added: string) => Buffer.concat([Buffer.from(added), mail.raw]);
      for (const [raw, want] of [
        [mail.raw, 'pass'],
        [tampered('List-Unsubscribe: <https://evil.test/u/x>\r\n'), 'fail'],
        [tampered('List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n'), 'fail'],
      ] as const) {
        for (const [verifier, verdict] of Object.entries(await verdicts(raw, txt))) {
          if (verdict === null) t.diagnostic(`${verifier} is not installed: that verifier was skipped`);
          else assert.equal(verdict, want, `${verifier} on ${raw === mail.raw ? 'the copy' : 'a tampered copy'}`);
        }
      }

      const body = decodeQp(raw);
      if (to === 'jane@rcpt.test') {
        assert.ok(body.includes('Hi Jane (Jane &#60;b&#62;Doe), this goes to jane@rcpt.test.'), 'HTML values escaped');
        assert.ok(body.includes('Hi Jane (Jane <b>Doe), this goes to jane@rcpt.test.'), 'text values as they are');
      } else {
        assert.ok(body.includes('Hi friend (), this goes to bob@rcpt.test.'), 'the fallback where the name is empty');
      }
      assert.ok(body.includes('{{unknown}}'), 'an unknown variable is left as written');
      assert.ok(body.includes(`<a href="${url}">Leave</a>`), 'the unsubscribe link is the URL itself, not tracked');
      assert.ok(!body.includes('If you no longer want these emails'), 'no footer when the body links the URL');
      assert.match(
        body,
        /<body>\n?<div style="max-height:0;[^"]*overflow:hidden[^"]*">Three things &#38; more/,
        'the preheader, escaped, first in the body',
      );
      assert.match(body, new RegExp(`<img src="${base}/t/o/[A-Za-z0-9_-]+\\.gif"`), 'the open pixel');
      const tracked = new RegExp(`href="(${base}/t/c/[^"]+)">Offer`).exec(body);
      assert.ok(tracked, 'the offer link is tracked');
      const go = await fetch(tracked[1]!.replace(/&#38;/g, '&').replace(/&amp;/g, '&'), { redirect: 'manual' });
      assert.equal(go.status, 302);
      assert.equal(go.headers.get('location'), 'https://example.com/offer?a=1&b=2');
    }
    assert.equal(ids.size, 2, 'each copy has its own Message-ID');

    // Every copy is a message record; the click counted; the campaign shows it.
    const listed = await s.get('/api/v2/messages?limit=500');
    assert.equal(listed.body.data.filter((m: { to: string }) => m.to === 'jane@rcpt.test' || m.to === 'bob@rcpt.test').length, 2);
    const campaignId = r.body.campaign_id;
    let shown = await until(
      'the campaign sent',
      async () => (await service.fanOut.toFanOut(), await service.broadcasts.show(s.ws, campaignId)),
      (c) => c.status === 'sent',
      undefined,
      50,
    );
    await service.tracking.drain();
    shown = await service.broadcasts.show(s.ws, campaignId);
    // A click is also an open (the reader saw the copy).
    assert.deepEqual(shown.counts, { queued: 0, sent: 2, bounced: 0, opened: 2, clicked: 2, unsubscribed: 0 });
    assert.equal(shown.recipients, 3);

    // The one-click POST to the header's URL unsubscribes, counted against the campaign.
    const janeUrl = `${base}/u/${jane.unsubscribe_token}`;
    const one = await fetch(janeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(one.status, 200);
    assert.equal((await service.lists.subscriber(s.ws, list.id, jane.id)).status, 'unsubscribed');
    assert.equal((await service.broadcasts.show(s.ws, campaignId)).counts!.unsubscribed, 1);
    // The mailto: of Bob's header: mail at his copy's return path with the subject `unsubscribe`.
    // Other mail there changes nothing.
    const bobCopy = copies.find((m) => m.to[0] === 'bob@rcpt.test')!;
    const bob = (await service.lists.subscribers(s.ws, list.id, {})).data.find((x: { email: string }) => x.email === 'bob@rcpt.test')!;
    const mx = s.daemon.url('mx');
    assert.match(
      (await transact(mx, 'bob@rcpt.test', [bobCopy.from], plainMail('bob@rcpt.test', bobCopy.from, 'Re: June news'))).end,
      /^250/,
    );
    assert.equal((await service.lists.subscriber(s.ws, list.id, bob.id)).status, 'active');
    assert.match(
      (await transact(mx, 'bob@rcpt.test', [bobCopy.from], plainMail('bob@rcpt.test', bobCopy.from, 'unsubscribe'))).end,
      /^250/,
    );
    assert.equal((await service.lists.subscriber(s.ws, list.id, bob.id)).status, 'unsubscribed');
    assert.equal((await service.broadcasts.show(s.ws, campaignId)).counts!.unsubscribed, 2);
    await call('POST', `/api/v2/lists/${list.id}/subscribers`, { email: 'erin@rcpt.test' });
    const another = await call('POST', `/api/v2/lists/${list.id}/broadcast`, { subject: 'Text only?', body_html: '<p>No link here</p>' });
    assert.equal(another.status, 202);
    assert.match(another.body.message, /^broadcast to 2 active subscribers of list 'News' queued$/);
    await s.sink.waitFor(sentBefore + 3);
    const footer = decodeQp(s.sink.received.at(-1)!.raw.toString('utf8'));
    assert.ok(footer.includes('If you no longer want these emails, <a href="'), 'a body without the URL gets a footer');
    assert.match(footer, /Unsubscribe: http:\/\/\S+\/u\/[A-Za-z0-9_-]{43}/, 'and its text part too');
  });

  test(`${backend}: a broadcast larger than the remaining send allowance is refused whole`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { plan: 'trial', deliver: false, ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const nl = (await service.keys.create(s.ws, { scopes: 'newsletter,send' })).key;
    const list = (await s.call('POST', '/api/v2/lists', { name: 'News', from_address: 'hello@acme.test' }, nl)).body;
    const csv = Array.from({ length: 60 }, (_, i) => `r${i}@rcpt.test`).join('\n');
    assert.equal((await s.call('POST', `/api/v2/lists/${list.id}/subscribers/import`, { csv }, nl)).body.imported, 60);
    // 150 of the trial's 200 a day used.
    const to = Array.from({ length: 150 }, (_, i) => `x${i}@rcpt.test`);
    const sent = await s.post({ from: 'hello@acme.test', to, subject: 'hi', body_text: 'hi' }, nl);
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const r = await s.call('POST', `/api/v2/lists/${list.id}/broadcast`, { subject: 'News', body_html: '<p>x</p>' }, nl);
    assert.equal(r.status, 429);
    assert.equal(r.body.code, 'quota_exceeded');
    assert.equal(r.body.kind, 'api_sends');
    assert.equal(r.body.used, 150);
    assert.equal(r.body.limit, 200);
    assert.deepEqual(await service.broadcasts.list(s.ws), []);
    assert.equal(await service.fanOut.runOnce(), 0);
    assert.equal((await s.get('/api/v2/messages?limit=500', nl)).body.total, 150, 'nothing queued');
    // 50 left: a list of 50 fits, exactly.
    const small = (await s.call('POST', '/api/v2/lists', { name: 'Small', from_address: 'hello@acme.test' }, nl)).body;
    await s.call('POST', `/api/v2/lists/${small.id}/subscribers/import`, { csv: to.slice(0, 50).join('\n') }, nl);
    assert.equal((await s.call('POST', `/api/v2/lists/${small.id}/broadcast`, { subject: 'News', body_html: '<p>x</p>' }, nl)).status, 202);
  });
}

for (const backend of backends) {
  test(`${backend}: a cancelled campaign: no more copies are made, and those not handed off are not sent`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { deliver: false, ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    // Every copy made (the daemon's worker, or the helper's call); none handed off yet.
    const { campaign: id } = await fannedOut(s, 30, 'News');
    const cancelled = await service.broadcasts.cancel(s.ws, id);
    assert.deepEqual([cancelled.status, cancelled.counts!.queued], ['cancelled', 30]);
    assert.deepEqual(await service.broadcasts.cancel(s.ws, id), cancelled, 'again: the same answer');
    await s.daemon.workers.find((w) => w.name === 'delivery')!.runOnce();
    const shown = await service.broadcasts.show(s.ws, id);
    assert.deepEqual([shown.status, shown.counts!.queued, shown.counts!.bounced, shown.counts!.sent], ['cancelled', 0, 30, 0]);
    assert.equal(s.sink.received.length, 0);
    const copy = (await s.get(`/api/v2/messages?limit=1`)).body.data[0];
    assert.equal((await s.get(`/api/v2/messages/${copy.id}`)).body.error, 'svc: not sent: the campaign was cancelled');
    assert.equal((await service.suppressions.list(s.ws)).length, 0, 'nobody suppressed');
  });
}

for (const backend of backends) {
  test(`${backend}: the Sent folder: a broadcast is one row with its count, whatever its batches; a sequence copy names its recipient`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { deliver: false, schedule: false, ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const N = 1001; // three batches of the fan-out
    const { list, campaign } = await fannedOut(s, N, 'June news');
    await s.post({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'Receipt', body_text: 'x' });
    const seq = await service.sequences.create(s.ws, { name: 'Welcome', list_id: list.id });
    await service.sequences.addStep(s.ws, seq.id, { position: 0, delay_hours: 0, subject: 'Welcome', body_text: 'hi' });
    await service.lists.subscribe(s.ws, list.id, { email: 'new@rcpt.test' });
    await service.scheduler.runOnce('test');
    const sent = (await service.inbox.list(s.ws, { folder: 'sent' })).data;
    assert.deepEqual(sent.map((x) => [x.subject, x.to, x.campaign?.copies ?? null]).sort(), [
      ['June news', [], N],
      ['Receipt', ['jane@rcpt.test'], null],
      ['Welcome', ['new@rcpt.test'], null],
    ]);
    assert.equal(sent.find((x) => x.campaign)!.campaign!.id, campaign);
    const shown = await run([
      '--store',
      pgUrl ?? `file:${s.daemon.service.store.describe.replace(/^file:/, '')}`,
      '--workspace',
      'acme',
      'inbox',
      'list',
      '--folder',
      'sent',
    ]);
    assert.match(shown.stdout, /1,001 subscribers \(broadcast, sending\)/, shown.stderr);
  });
}

for (const backend of backends) {
  // 5,000 copies: the hand-off of a broadcast that size takes seconds, while the transactional send
  // is claimed ahead of it at once (the fair claim at 20,000 is the store conformance suite's).
  const N = 5_000;
  test(`${backend}: a transactional send during a ${N.toLocaleString('en')}-copy broadcast is handed off before the broadcast ends`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const nl = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
    const list = (await s.call('POST', '/api/v2/lists', { name: 'News', from_address: 'hello@acme.test' }, nl)).body;
    const imported = await s.call(
      'POST',
      `/api/v2/lists/${list.id}/subscribers/import`,
      { csv: Array.from({ length: N }, (_, i) => `r${i}@rcpt.test`).join('\n') },
      nl,
    );
    assert.equal(imported.body.imported, N);
    const r = await s.call('POST', `/api/v2/lists/${list.id}/broadcast`, { subject: 'Bulk', body_html: '<p>Hi {{email}}</p>' }, nl);
    assert.equal(r.status, 202);
    await s.sink.waitFor(50);
    const urgent = await s.post({
      from: 'hello@acme.test',
      to: ['reset@rcpt.test'],
      subject: 'Your password reset',
      body_text: 'code 1234',
    });
    assert.equal(urgent.status, 202);
    const arrived = () => s.sink.received.findIndex((m) => m.to[0] === 'reset@rcpt.test');
    const at = await until(
      'the reset arrived',
      async () => arrived(),
      (i) => i >= 0,
      undefined,
      10,
    );
    const copiesBefore = s.sink.received.slice(0, at).length;
    assert.ok(copiesBefore < N, `handed off after ${copiesBefore} of ${N} copies, before the broadcast ended`);
    t.diagnostic(`the reset went out after ${copiesBefore} broadcast copies`);
    // Ended here: the rest is not needed.
    await service.broadcasts.cancel(s.ws, r.body.campaign_id);
  });
}

for (const backend of backends) {
  test(`${backend}: unsubscribes and suppressions made during a broadcast's hand-off hold: those copies are not sent`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { deliver: false, ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const N = 30;
    const { list } = await fannedOut(s, N, 'News');
    // The copies are made; before they leave, five people unsubscribe (one-click) and five addresses are suppressed.
    const subs = (await service.lists.subscribers(s.ws, list.id, { limit: 100 })).data as Array<{
      email: string;
      unsubscribe_token: string;
    }>;
    for (const sub of subs.filter((x) => /^r[0-4]@/.test(x.email)))
      assert.equal(
        (await fetch(`${service.deps.config.baseUrl}/u/${sub.unsubscribe_token}`, { method: 'POST', body: 'List-Unsubscribe=One-Click' }))
          .status,
        200,
      );
    for (let i = 5; i < 10; i++) await service.suppressions.add(s.ws, `r${i}@rcpt.test`);
    await s.daemon.workers.find((w) => w.name === 'delivery')!.runOnce();
    const got = new Set(s.sink.received.map((m) => m.to[0]));
    assert.equal(got.size, N - 10);
    for (let i = 0; i < 10; i++) assert.ok(!got.has(`r${i}@rcpt.test`), `r${i} got no copy`);
    const record = async (to: string) => (await s.get(`/api/v2/messages?recipient=${to}`)).body.data[0];
    assert.equal((await record('r0@rcpt.test')).status, 'bounced');
    assert.match(
      (await s.get(`/api/v2/messages/${(await record('r0@rcpt.test')).id}`)).body.error,
      /the subscriber unsubscribed|suppression list \(unsubscribe/,
    );
    assert.match(
      (await s.get(`/api/v2/messages/${(await record('r7@rcpt.test')).id}`)).body.error,
      /^svc: not sent: r7@rcpt\.test is on the suppression list \(manual/,
    );
    assert.equal((await record('r20@rcpt.test')).status, 'sent');
  });

  test(`${backend}: deleting a list cancels its broadcast and removes its sequences: nothing more leaves for it`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { deliver: false, schedule: false, ...(pgUrl ? { store: pgLocation(pgUrl) } : {}) });
    const { service } = s.daemon;
    const { nl, list, campaign } = await fannedOut(s, 20, 'News');
    const seq = await service.sequences.create(s.ws, { name: 'Drip', list_id: list.id });
    assert.equal((await s.call('DELETE', `/api/v2/lists/${list.id}`, undefined, nl)).status, 204);
    assert.equal((await service.broadcasts.show(s.ws, campaign)).status, 'cancelled');
    assert.deepEqual(await service.store.sequences.get(s.ws.id, seq.id), null, 'its sequence is gone');
    await s.daemon.workers.find((w) => w.name === 'delivery')!.runOnce();
    assert.equal(s.sink.received.length, 0, 'no copy left');
    assert.equal((await s.get(`/api/v2/messages?status=bounced`)).body.total, 20);
  });
}

/** A list of `n` subscribers (r0@rcpt.test, ...) and its broadcast, fanned out: every copy is made. */
async function fannedOut(s: Sending, n: number, subject: string) {
  const { service } = s.daemon;
  const nl = (await service.keys.create(s.ws, { scopes: 'newsletter' })).key;
  const list = (await s.call('POST', '/api/v2/lists', { name: 'News', from_address: 'hello@acme.test' }, nl)).body;
  await s.call(
    'POST',
    `/api/v2/lists/${list.id}/subscribers/import`,
    { csv: Array.from({ length: n }, (_, i) => `r${i}@rcpt.test`).join('\n') },
    nl,
  );
  const r = await s.call('POST', `/api/v2/lists/${list.id}/broadcast`, { subject, body_html: '<p>x</p>' }, nl);
  await service.fanOut.runOnce();
  await until(
    'every copy made',
    () => service.broadcasts.show(s.ws, r.body.campaign_id),
    (b) => b.copies >= n,
    180_000,
    20,
  );
  return { nl, list, campaign: r.body.campaign_id as string };
}
