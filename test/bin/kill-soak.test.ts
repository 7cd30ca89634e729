// A daemon killed with SIGKILL again and again while mail comes in through the REST API, the relay
// and the MX at once (and its workers deliver to a sink): after every kill it starts on the same
// store, and everything it acknowledged (a 202, a relay's `250 OK: queued`, the MX's 250) is there
// at the end. SVC_KILL_ROUNDS kills (3 here; `npm run bench -- soak` runs 30); each kill comes after
// a number of acknowledgements drawn at random, never after a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { serve, cliSender, svc, json, type ServeProcess } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { sink } from '../helpers/sink.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';
import { plainMail } from '../helpers/mx.js';

const ROUNDS = Number(process.env.SVC_KILL_ROUNDS ?? 3);

interface Acked {
  rest: string[];
  relay: string[];
  mx: string[];
}

/** Sends through `d` until it dies; what it acknowledged goes into `acked` as it comes. */
function load(d: ServeProcess, key: string, round: number, acked: Acked, onAck: () => void): Promise<void> {
  const rest = async () => {
    for (let i = 0; ; i++) {
      const r = await fetch(`${d.urls.api}/api/v2/emails`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          from: 'hello@acme.test',
          to: [`r${i}@rcpt.test`],
          subject: `rest ${round}.${i}`,
          body_text: 'x'.repeat(2000),
        }),
      });
      const body = (await r.json()) as { id?: string };
      if (r.status === 202 && body.id) {
        acked.rest.push(body.id);
        onAck();
      }
    }
  };
  const relay = async () => {
    const { client } = await RawSmtp.open(d.urls.relay!);
    await client.cmd('EHLO client.test');
    await client.cmd(`AUTH PLAIN ${plain(key)}`);
    for (let i = 0; !client.closed; i++) {
      await client.cmd('MAIL FROM:<hello@acme.test>');
      await client.cmd(`RCPT TO:<s${i}@rcpt.test>`);
      await client.cmd('DATA');
      const end = await client.cmd(
        `From: hello@acme.test\r\nTo: s${i}@rcpt.test\r\nSubject: relay ${round}.${i}\r\n\r\n${'y'.repeat(2000)}\r\n.`,
      );
      const queued = /^250 2\.0\.0 OK: queued as (\S+)$/.exec(end);
      if (queued) {
        acked.relay.push(queued[1]!);
        onAck();
      }
    }
  };
  const mx = async () => {
    const { client } = await RawSmtp.open(d.urls.mx!);
    await client.cmd('EHLO sender.test');
    for (let i = 0; !client.closed; i++) {
      await client.cmd(`MAIL FROM:<someone${i}@elsewhere.test>`);
      await client.cmd('RCPT TO:<hello@acme.test>');
      await client.cmd('DATA');
      const subject = `mx ${round}.${i}`;
      const end = await client.cmd(plainMail(`someone${i}@elsewhere.test`, 'hello@acme.test', subject).replace(/\r\n$/, '') + '\r\n.');
      if (end.startsWith('250 ')) {
        acked.mx.push(subject);
        onAck();
      }
    }
  };
  // Each ends when the daemon dies under it (a refused connection, a closed one): that is the point.
  return Promise.allSettled([rest(), rest(), relay(), relay(), mx()]).then(() => undefined);
}

test(
  `${ROUNDS} SIGKILLs under REST, relay and MX load: everything acknowledged is there after the last restart`,
  { timeout: 600_000 },
  async (t) => {
    const dns = await fixtureDns(t);
    const s = await sink(t);
    const dir = await tmpDir(t);
    const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const flags = [...base, '--direct-port', String(s.port), '--mx-rate-per-sender', '0', '--mx-rate-per-workspace', '0'];
    const acked: Acked = { rest: [], relay: [], mx: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const d = await serve(flags, { listeners: ['api', 'relay', 'mx'] });
      t.after(() => d.stop('SIGKILL'));
      const mine: Acked = { rest: [], relay: [], mx: [] };
      // At most 200 acknowledged before the kill (a few more in flight): the round's records are the
      // newest 500 the commands list.
      const after = randomInt(20, 200);
      let kill!: () => void;
      const due = new Promise<void>((r) => (kill = r));
      const sending = load(d, key, round, mine, () => {
        // Each way in has been acknowledged at least once before the kill, so each is tried every round.
        if (mine.rest.length && mine.relay.length && mine.mx.length && mine.rest.length + mine.relay.length + mine.mx.length >= after)
          kill();
      });
      await due;
      await d.stop('SIGKILL');
      await sending;
      // Read by the commands with no daemon running (the next start's recovery is theirs too).
      const ids = new Set(
        (json(await svc([...base, 'messages', 'list', '--limit', '500', '--json'])) as Array<{ id: string }>).map((m) => m.id),
      );
      for (const id of [...mine.rest, ...mine.relay]) assert.ok(ids.has(id), `round ${round}: the acknowledged send ${id} is there`);
      const inbox = json(await svc([...base, 'inbox', 'list', '--limit', '500', '--json'])) as Array<{ subject: string }>;
      const received = new Set(inbox.map((m) => m.subject));
      for (const subject of mine.mx) assert.ok(received.has(subject), `round ${round}: the MX's acknowledged "${subject}" is there`);
      for (const k of ['rest', 'relay', 'mx'] as const) acked[k].push(...mine[k]);
    }
    // It still starts, answers and stops cleanly after the last kill.
    const d = await serve(flags, { listeners: ['api'] });
    t.after(() => d.stop('SIGKILL'));
    assert.equal((await fetch(`${d.urls.api}/healthz`)).status, 200);
    assert.equal(await d.stop(), 0);
    assert.ok(
      acked.rest.length && acked.relay.length && acked.mx.length,
      `acknowledged: ${JSON.stringify(Object.values(acked).map((a) => a.length))}`,
    );
    t.diagnostic(
      `acknowledged before ${ROUNDS} kills: ${acked.rest.length} REST, ${acked.relay.length} relay, ${acked.mx.length} MX; none lost`,
    );
  },
);
