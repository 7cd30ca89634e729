// The team inbox in the web app through the real daemon: threads with unread markers,
// a thread with our Sent message and the reply in order, hostile mail HTML only in a sandboxed
// frame (no script, remote images blocked until asked), read/unread, archive (and new mail bringing
// a thread back), search, the Sent folder, a reply from the browser through the one pipeline and
// the inbox sends per day (429 as a sentence), forms refused without their token or from another
// site, workspaces apart, and new mail announced on the event stream. Both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending, settled } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { dsn, plainMail, replyTo, transact } from '../helpers/mx.js';
import { headers } from '../helpers/sink.js';
import { answeredThread, browser, formOf, signedInAs } from '../helpers/app-browser.js';
import { STREAMS_PER_SESSION } from '../../daemon/http/inbox-live.js';
import { run } from '../helpers/run.js';

const HOSTILE = '<p>Thanks!</p><script>document.title="pwned"</script><img src="https://tracker.test/p.gif" alt="">';

/** Reads an event stream until `want` appears in it, or fails after `ms`. */
async function streamUntil(url: string, cookie: string, want: RegExp, whileOpen: () => Promise<void>, ms = 10_000): Promise<string> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    const r = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
    const reader = r.body!.getReader();
    let seen = '';
    let opened = false;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${want}: ${seen}`);
      seen += Buffer.from(value).toString();
      if (!opened && seen.includes('retry:')) {
        opened = true;
        await whileOpen();
      }
      if (want.test(seen)) return seen;
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: web app inbox: threads, a thread, hostile HTML sandboxed, read/unread, archive, search, Sent, reply and its quota, refusals, live`, async (t) => {
    const s = await answeredThread(t, backend, HOSTILE);
    const { service } = s.daemon;
    const mx = s.daemon.url('mx');

    // A member reads and answers the inbox.
    const b = await signedInAs(s, s.ws, 'mo@acme.test', 'member');
    const list = await b.go('GET', '/app/w/acme/inbox');
    assert.equal(list.status, 200);
    assert.match(list.html, /1 thread\./);
    assert.match(
      list.html,
      /<li class="unread"><a href="\/app\/w\/acme\/inbox\/t\/([^"]+)"><span class="tag">New<\/span> <span class="who">jane@rcpt\.test<\/span> <span class="subject">Hello<\/span>/,
    );
    assert.match(list.html, /<script src="\/app\/app\.js" defer><\/script>/);
    assert.match(list.headers.get('content-security-policy')!, /script-src 'self'/);
    const thread = /\/app\/w\/acme\/inbox\/t\/([^"]+)/.exec(list.html)![1]!;
    const js = await fetch(`${s.api}/app/app.js`);
    assert.equal(js.status, 200);
    assert.match(await js.text(), /EventSource/);

    // The thread: our message, then Jane's, in order; her HTML only inside a sandboxed srcdoc frame, escaped.
    const page = await b.go('GET', `/app/w/acme/inbox/t/${thread}`);
    assert.equal(page.status, 200);
    const order = [...page.html.matchAll(/<strong>(Sent by us|Reply)<\/strong>/g)].map((x) => x[1]);
    assert.deepEqual(order, ['Sent by us', 'Reply']);
    assert.equal(page.html.match(/<script/g)!.length, 1, "only the page's own script tag");
    assert.match(
      page.html,
      /<iframe class="mail" [^>]*sandbox="allow-popups allow-popups-to-escape-sandbox"[^>]*srcdoc="[^"]*&#60;script&#62;document\.title/,
    );
    assert.doesNotMatch(page.html, /sandbox="[^"]*allow-scripts/);
    assert.doesNotMatch(page.headers.get('content-security-policy')!, /img-src/, 'remote images blocked');
    assert.match(page.html, /Show images in this message/);
    const itemId = /name="item" value="([^"]+)"/.exec(page.html)![1]!;
    const withImages = await b.go('GET', `/app/w/acme/inbox/t/${thread}?images=${itemId}`);
    assert.match(withImages.headers.get('content-security-policy')!, /img-src https: http: data:/);
    assert.doesNotMatch(
      (await b.go('GET', `/app/w/acme/inbox/t/${thread}?images=nonsense`)).headers.get('content-security-policy')!,
      /img-src/,
    );
    // Opening it read it, for the team.
    assert.equal((await s.get(`/api/v2/inbox/threads/${thread}`)).body.unread, false);
    assert.match((await b.go('GET', '/app/w/acme/inbox')).html, /<li class="read">/);

    // Mark unread, archive, new mail brings it back; forms need their token and this origin.
    const form = formOf(page.html);
    assert.equal((await b.go('POST', `/app/w/acme/inbox/t/${thread}/mark`, { form: 'forged', read: 'false' })).status, 403);
    assert.equal(
      (await b.go('POST', `/app/w/acme/inbox/t/${thread}/mark`, { form, read: 'false' }, { 'sec-fetch-site': 'cross-site' })).status,
      403,
    );
    assert.equal((await s.get(`/api/v2/inbox/threads/${thread}`)).body.unread, false, 'refused forms changed nothing');
    const unread = await b.go('POST', `/app/w/acme/inbox/t/${thread}/mark`, { form, read: 'false' });
    assert.deepEqual([unread.status, unread.location], [303, '/app/w/acme/inbox']);
    assert.match((await b.go('GET', '/app/w/acme/inbox')).html, /<li class="unread">/);
    assert.equal((await b.go('POST', `/app/w/acme/inbox/t/${thread}/mark`, { form, archived: 'true' })).status, 303);
    assert.match((await b.go('GET', '/app/w/acme/inbox')).html, /0 threads\./);
    assert.match((await b.go('GET', '/app/w/acme/inbox?view=archived')).html, /1 thread\./);
    const followUp = replyTo('jane@rcpt.test', 'hello@acme.test', s.messageId).replace('Thanks, that helps.', 'One more thing.');
    assert.match((await transact(mx, 'jane@rcpt.test', ['hello@acme.test'], followUp)).end, /^250 /);
    assert.match((await b.go('GET', '/app/w/acme/inbox')).html, /1 thread\./);
    assert.match((await b.go('GET', '/app/w/acme/inbox?view=archived')).html, /0 threads\./);

    // Search by address or subject; a query is text, escaped back.
    assert.match((await b.go('GET', '/app/w/acme/inbox?q=JANE')).html, /1 thread\./);
    const none = await b.go('GET', `/app/w/acme/inbox?q=${encodeURIComponent('"><b>x')}`);
    assert.match(none.html, /0 threads\./);
    assert.match(none.html, /value="&#34;&#62;&#60;b&#62;x"/);

    // A reply from the browser: through the pipeline to Jane, threaded; then in Sent.
    const before = s.sink.received.length;
    const bare = await b.go('POST', `/app/w/acme/inbox/t/${thread}/reply`, { form, item: itemId, text: '  ' });
    assert.equal(bare.status, 400);
    assert.match(bare.html, /Problem: write a reply first\./);
    assert.equal((await b.go('POST', `/app/w/acme/inbox/t/${thread}/reply`, { form: 'forged', item: itemId, text: 'Forged' })).status, 403);
    assert.equal(
      (await b.go('POST', `/app/w/acme/inbox/t/${thread}/reply`, { form, item: itemId, text: 'Cross' }, { origin: 'https://evil.test' }))
        .status,
      403,
    );
    const replied = await b.go('POST', `/app/w/acme/inbox/t/${thread}/reply`, { form, item: itemId, text: 'Glad it helped.' });
    assert.deepEqual([replied.status, replied.location], [303, `/app/w/acme/inbox/t/${thread}?sent=1`]);
    await s.sink.waitFor(before + 1);
    assert.equal(s.sink.received.length, before + 1, 'refused forms sent nothing');
    const out = s.sink.received.at(-1)!;
    assert.deepEqual(out.to, ['jane@rcpt.test']);
    assert.equal(headers(out.raw).get('subject')![0], 'Re: Hello');
    assert.match(headers(out.raw).get('in-reply-to')![0]!, /@rcpt\.test>$/);
    assert.match((await b.go('GET', `/app/w/acme/inbox/t/${thread}?sent=1`)).html, /Reply sent\./);
    const sentPage = await b.go('GET', '/app/w/acme/inbox/sent');
    assert.match(sentPage.html, /2 messages sent/);
    assert.match(sentPage.html, /Re: Hello/);

    // The trial's 50 inbox sends a day: the 51st reply is 429, said with when it resets; the draft is kept.
    for (let i = 1; i < 50; i++) await service.inbox.reply(s.ws, itemId, { text: `n${i}` });
    const over = await b.go('POST', `/app/w/acme/inbox/t/${thread}/reply`, { form, item: itemId, text: 'One too many <b>' });
    assert.equal(over.status, 429);
    assert.match(
      over.html,
      /Problem: the workspace has sent the 50 replies a day its plan allows from the inbox\. You can reply again after \d{4}-\d\d-\d\d 00:00 UTC; your reply is kept below\./,
    );
    assert.match(over.html, /<textarea[^>]*>One too many &#60;b&#62;<\/textarea>/);

    // Another workspace's thread and item: 404; an item of another thread: 404; not signed in: to sign-in.
    const other = await service.workspaces.create('other', 'scale');
    await service.domains.add(other, 'other.test');
    const elsewhere = await b.go('GET', `/app/w/other/inbox`);
    assert.equal(elsewhere.status, 404);
    assert.equal((await b.go('GET', `/app/w/acme/inbox/t/no-such-thread`)).status, 404);
    assert.match(
      (await transact(mx, 'ann@elsewhere.test', ['hello@acme.test'], plainMail('ann@elsewhere.test', 'hello@acme.test', 'Separate'))).end,
      /^250 /,
    );
    const separate = (await s.get('/api/v2/inbox/threads?search=Separate')).body.data[0].thread_id;
    assert.equal((await b.go('POST', `/app/w/acme/inbox/t/${separate}/reply`, { form, item: itemId, text: 'wrong thread' })).status, 404);
    assert.equal((await browser(s.api).go('GET', '/app/w/acme/inbox')).status, 303);
    assert.equal((await browser(s.api).go('GET', '/app/w/acme/inbox/events')).status, 303);

    // New mail is announced on the page's event stream (the page then fetches itself again).
    const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const seen = await streamUntil(`${s.api}/app/w/acme/inbox/events`, cookie, /event: inbox/, async () => {
      assert.match(
        (await transact(mx, 'sam@elsewhere.test', ['hello@acme.test'], plainMail('sam@elsewhere.test', 'hello@acme.test', 'Live'))).end,
        /^250 /,
      );
    });
    assert.match(seen, /retry: 5000/);

    // One sign-in holds at most 16 live pages; the 17th is 429 (and a closed one frees its place).
    const ac = new AbortController();
    const deadline = setTimeout(() => ac.abort(), 10_000);
    try {
      const open = await Promise.all(
        Array.from({ length: STREAMS_PER_SESSION }, () =>
          fetch(`${s.api}/app/w/acme/inbox/events`, { headers: { cookie }, signal: ac.signal }),
        ),
      );
      assert.deepEqual([...new Set(open.map((r) => r.status))], [200]);
      for (const r of open) await r.body!.getReader().read();
      const refused = await fetch(`${s.api}/app/w/acme/inbox/events`, { headers: { cookie }, signal: ac.signal });
      assert.equal(refused.status, 429);
      assert.match(await refused.text(), /at most 16 live pages at once per sign-in/);
    } finally {
      clearTimeout(deadline);
      ac.abort();
    }

    // A delay notice about the first message joins its thread, shown as what it is; the reply form
    // still writes to Jane, not to the machine that sent the notice.
    const first = s.sink.received[0]!;
    assert.match(
      (await transact(mx, '', [first.from], dsn('jane@rcpt.test', s.messageId, 'delayed', '4.2.2', '452 4.2.2 mailbox full'))).end,
      /^250 /,
    );
    const withReport = await b.go('GET', `/app/w/acme/inbox/t/${thread}`);
    assert.match(
      withReport.html,
      /<strong>Automatic reply<\/strong> · <time[^>]*>[^<]*<\/time><br>From (?:[^<]* &#60;)?mailer-daemon@rcpt\.test/,
    );
    assert.match(withReport.html, /<p class="meta">To jane@rcpt\.test, from hello@acme\.test<\/p>/);
  });
}

/** Opens the event stream and resolves once the server ends it after `action`; fails after `ms`. */
async function streamEnds(url: string, cookie: string, action: () => Promise<unknown>, ms = 10_000): Promise<void> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  try {
    const r = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: ac.signal });
    assert.equal(r.status, 200);
    const reader = r.body!.getReader();
    await reader.read();
    await action();
    for (;;) if ((await reader.read()).done) return;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

test('a live inbox page ends with its session: sign-out, svc users reset (another process), svc users remove', async (t) => {
  const s = await answeredThread(t, 'file', '<p>x</p>');
  const { service } = s.daemon;
  const store = `file:${service.store.describe.replace(/^file:/, '')}`;
  const events = `${s.api}/app/w/acme/inbox/events`;
  const ws = await service.workspaces.setPlan('acme', 'scale');
  const cookieOf = (b: Awaited<ReturnType<typeof signedInAs>>) => [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const ann = await signedInAs(s, ws, 'ann@acme.test', 'admin');
  const home = await ann.go('GET', '/app/');
  await streamEnds(events, cookieOf(ann), async () =>
    assert.equal((await ann.go('POST', '/app/sign-out', { form: formOf(home.html) })).status, 303),
  );
  const bob = await signedInAs(s, ws, 'bob@acme.test', 'member');
  await streamEnds(events, cookieOf(bob), async () => {
    const r = await run(['--store', store, '--workspace', 'acme', 'users', 'reset', 'bob@acme.test']);
    assert.equal(r.code, 0, r.stderr);
  });
  const cy = await signedInAs(s, ws, 'cy@acme.test', 'member');
  await streamEnds(events, cookieOf(cy), () => service.people.remove(ws, 'cy@acme.test'));
});
