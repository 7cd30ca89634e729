// `svc messages explain`: the whole life of a delivered, a bounced after a retry, and a suppressed
// message, from the real command against a running daemon, on both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { handOffByHand, byTo } from '../helpers/sending.js';
import { svc, json } from '../helpers/cli.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

for (const backend of ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])]) {
  test(`${backend}: explain a delivered, a retried then bounced and a suppressed message`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const { s, clock, deliver } = await handOffByHand(t, { SVC_PREFETCH_WINDOW: '1' }, pgUrl ? pgLocation(pgUrl) : undefined);
    const store = pgUrl ?? `file:${s.daemon.service.store.describe.replace(/^file:/, '')}`;
    s.sink.refuse('slow@rcpt.test', 451, '4.7.1 greylisted, try later', 1);
    s.sink.refuse('slow@rcpt.test', 550, '5.1.1 <slow@rcpt.test>: no such user');
    await s.daemon.service.suppressions.add(s.ws, 'gone@rcpt.test');
    const r = await s.post(
      { from: 'hello@acme.test', to: ['jane@rcpt.test', 'slow@rcpt.test', 'gone@rcpt.test'], subject: 'Life', body_html: '<p>Hi</p>' },
      undefined,
      'explain-1',
    );
    assert.equal(r.status, 202);
    await deliver();
    clock.advance(10 * 60_000);
    await deliver();
    // Jane opens it later.
    const janeCopy = s.sink.received.find((x) => x.to[0] === 'jane@rcpt.test')!;
    const pixel = /(https?:\/\/[^"]+\/t\/o\/[A-Za-z0-9_-]+\.gif)/.exec((await PostalMime.parse(janeCopy.raw)).html ?? '')![1]!;
    clock.advance(60_000);
    await fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0 Firefox/120.0' } });
    await s.daemon.service.tracking.drain();
    const m = await byTo(s);

    const explain = async (id: string) => {
      const out = await svc(['--store', store, '--workspace', 'acme', 'messages', 'explain', id, '--json']);
      assert.equal(out.code, 0, out.stderr);
      const body = json<{ id: string; timeline: Array<{ at: string; stage: string; detail: string }> }>(out);
      assert.equal(body.id, id);
      const ats = body.timeline.map((e) => e.at);
      assert.deepEqual(ats, [...ats].sort(), 'in time order');
      return body.timeline;
    };

    const jane = await explain(m['jane@rcpt.test'].id);
    assert.deepEqual(
      jane.map((e) => e.stage),
      ['accepted', 'suppression', 'attempt 1', 'sent', 'open'],
    );
    assert.match(jane[0]!.detail, /via the REST API .*key svc_[^ ]*… .*Idempotency-Key "explain-1"/);
    assert.match(jane[2]!.detail, /TLS, \d+ ms: sent: 250 .*; DKIM d=acme\.test s=svc1 h=[^ ]*feedback-id/i);
    assert.match(jane[4]!.detail, /^human, counted/);

    const slow = await explain(m['slow@rcpt.test'].id);
    assert.deepEqual(
      slow.map((e) => e.stage),
      ['accepted', 'suppression', 'attempt 1', 'attempt 2', 'bounced'],
    );
    // The server answered (its session's TLS is not known on a refusal): never "no session".
    assert.match(slow[2]!.detail, /, answered, \d+ ms: temporary .*451 4\.7\.1 greylisted/);
    assert.match(slow[3]!.detail, /permanent \(bad-mailbox\): 550 5\.1\.1/);

    const gone = await explain(m['gone@rcpt.test'].id);
    assert.deepEqual(
      gone.map((e) => e.stage),
      ['accepted', 'suppression', 'bounced'],
    );
    assert.match(gone[1]!.detail, /^not sent: gone@rcpt\.test is on the suppression list/);

    // People get a readable timeline; another workspace's id is not found.
    const human = await svc(['--store', store, '--workspace', 'acme', 'messages', 'explain', m['jane@rcpt.test'].id]);
    assert.match(human.stdout, /^message \S+\n\S+  accepted +from hello@acme\.test/);
    await s.daemon.service.workspaces.create('other', 'scale');
    assert.equal((await svc(['--store', store, '--workspace', 'other', 'messages', 'explain', m['jane@rcpt.test'].id])).code, 1);
  });
}
