// A bounce report written by a real MTA, not by our own test helpers: svc hands a message to a
// private Postfix as its smarthost; Postfix accepts it (svc records `sent`), relays it to the
// recipient's server, which refuses the recipient with 550 5.1.1; Postfix then writes its own
// RFC 3464 report to the message's return path and delivers it to svc's MX (its transport map
// stands in for acme.test's MX record). The report must bounce the message and suppress the
// address. A recipient the server keeps deferring gets Postfix's delay warning instead (Action:
// delayed), which must only be noted on that message's timeline. Skipped, with the reason, where
// Postfix cannot run (not installed, not root).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sending } from '../helpers/sending.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';
import { freePort, postfixUnavailable, startPostfix } from '../helpers/postfix.js';

const backends = ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])];

/** `read()` again every 100 ms, for up to 30 s, until `done` holds of what it gave; the last value. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let v = await read();
  for (let i = 0; i < 300 && !done(v); i++) {
    await new Promise((res) => setTimeout(res, 100));
    v = await read();
  }
  return v;
}

for (const backend of backends) {
  test(`${backend}: MX: a real Postfix's bounce report about mail it accepted from svc bounces the message and suppresses the address; its delay warning is only noted`, async (t) => {
    const why = postfixUnavailable();
    if (why) return t.skip(why);
    const smarthost = await freePort();
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, { ...(pgUrl ? { store: pgLocation(pgUrl) } : {}), env: { SVC_OUTBOUND: `smtp://127.0.0.1:${smarthost}` } });
    s.sink.refuse('gone@rcpt.test', 550, '5.1.1 <gone@rcpt.test>: Recipient address rejected: User unknown');
    s.sink.refuse('slow@rcpt.test', 450, '4.2.0 <slow@rcpt.test>: Recipient address rejected: Greylisted');
    const mxPort = Number(new URL(s.daemon.url('mx')).port);
    const postfix = await startPostfix(t, { port: smarthost, relay: s.sink.port, routes: { 'acme.test': mxPort } });

    const r = await s.post({ from: 'hello@acme.test', to: ['gone@rcpt.test'], subject: 'Hello', body_html: '<p>Hello</p>' });
    assert.equal(r.status, 202);
    const id = r.body.id as string;
    const slow = await s.post({ from: 'hello@acme.test', to: ['slow@rcpt.test'], subject: 'Hello', body_html: '<p>Hello</p>' });
    assert.equal(slow.status, 202);
    const m = await until(
      async () => (await s.get(`/api/v2/messages/${id}`)).body as { status: string; error: string; bounced_at: string | null },
      (x) => x.status === 'bounced',
    );
    assert.equal(m.status, 'bounced', `the message is ${m.status}; postfix logged:\n${postfix.log()}`);
    assert.match(m.error, /bounce report: 5\.1\.1/);
    assert.ok(m.bounced_at);
    // It was Postfix's report, after Postfix had taken the message from us.
    assert.match(postfix.log(), /status=bounced/);
    assert.match(postfix.log(), /sender non-delivery notification/);
    // Postfix took STARTTLS from our MX (with its self-signed certificate, as mail on the internet does).
    assert.match(
      postfix.log(),
      new RegExp(`(Untrusted|Anonymous) TLS connection established to 127\\.0\\.0\\.1\\[127\\.0\\.0\\.1\\]:${mxPort}`),
    );
    const service = s.daemon.service;
    const [item] = await service.store.inbox.about(s.ws.id, id);
    assert.equal(item?.kind, 'bounce');
    assert.equal(item?.from, 'mailer-daemon@postfix.test');
    assert.match(item!.note!, /gone@rcpt\.test: failed 5\.1\.1, suppressed/);
    const [sup] = await service.store.suppressions.find(s.ws.id, ['gone@rcpt.test']);
    assert.equal(sup?.reason, 'bounce');
    assert.equal(sup?.message_id, id);

    // The delay warning: on the timeline, nothing else. A delay notice is automatic mail, never a
    // bounce (since the inbound-trust change, ab5b47c): kept as an auto_reply with its note.
    const slowId = slow.body.id as string;
    const noted = await until(
      async () => (await service.explain(s.ws, slowId)).timeline.filter((e) => e.stage === 'received auto_reply').map((e) => e.detail),
      (x) => x.length > 0,
    );
    assert.equal(noted.length, 1, `no delay warning arrived; postfix logged:\n${postfix.log()}`);
    assert.match(noted[0]!, /slow@rcpt\.test: delivery delayed 4\.2\.0, still being retried by the receiving side; nothing changed/);
    assert.equal((await s.get(`/api/v2/messages/${slowId}`)).body.status, 'sent');
    assert.deepEqual(await service.store.suppressions.find(s.ws.id, ['slow@rcpt.test']), []);
    const [warning] = await service.store.inbox.about(s.ws.id, slowId);
    assert.equal(warning?.kind, 'auto_reply');
  });
}
