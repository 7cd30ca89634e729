// The daemon's main road in one test, the one CI also runs on a second Node: a message sent through
// REST and one through the SMTP relay each reach the recipient's MX (the sink), DKIM-signed, and
// their records read `sent`. Both stores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mail, sending, settled } from '../helpers/sending.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';
import { verifyDkim } from '../helpers/sink.js';
import { TEST_DATABASE_URL, migratedSchemaUrl, pgLocation } from '../helpers/pg.js';

const backends = ['file', ...(TEST_DATABASE_URL ? ['postgres'] : [])];

for (const backend of backends) {
  test(`${backend}: sent through REST and through the relay, both reach the sink signed`, async (t) => {
    const pgUrl = backend === 'postgres' ? await migratedSchemaUrl(t) : null;
    const s = await sending(t, pgUrl ? { store: pgLocation(pgUrl) } : {});

    const rest = await s.post(mail(['jane@rcpt.test'], { subject: 'Through REST' }));
    assert.equal(rest.status, 202, JSON.stringify(rest.body));

    const { client } = await RawSmtp.open(s.daemon.url('relay'));
    await client.cmd('EHLO client.test');
    assert.equal(await client.cmd(`AUTH PLAIN ${plain(s.key)}`), '235 2.7.0 Authentication successful');
    assert.match(await client.cmd('MAIL FROM:<hello@acme.test>'), /^250 /);
    assert.match(await client.cmd('RCPT TO:<bob@rcpt.test>'), /^250 /);
    assert.match(await client.cmd('DATA'), /^354 /);
    const queued = await client.cmd(
      'From: hello@acme.test\r\nTo: bob@rcpt.test\r\nSubject: Through the relay\r\nMessage-ID: <smoke@client.test>\r\n\r\nHello.\r\n.',
    );
    const relayed = /^250 2\.0\.0 OK: queued as ([0-9a-f-]{36})$/.exec(queued);
    assert.ok(relayed, queued);
    await client.cmd('QUIT');
    client.destroy();

    await s.sink.waitFor(2);
    const got = new Map(s.sink.received.map((m) => [m.to[0], m]));
    assert.deepEqual([...got.keys()].sort(), ['bob@rcpt.test', 'jane@rcpt.test']);
    for (const m of got.values()) assert.equal((await verifyDkim(m.raw, s.dns.server))[0]?.status.result, 'pass', m.to[0]);
    assert.match(got.get('jane@rcpt.test')!.raw.toString(), /^Subject: Through REST$/m);
    assert.match(got.get('bob@rcpt.test')!.raw.toString(), /^Subject: Through the relay$/m);
    for (const id of [rest.body.id, relayed[1]!]) assert.equal((await settled(s, id, 120_000)).status, 'sent', id);
  });
}
