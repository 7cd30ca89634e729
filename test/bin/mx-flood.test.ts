// A flood of tiny messages from one sender into a heap-capped daemon (it once held a summary of
// every one and died replaying them at every restart): past the per-sender rate the MX defers with
// 451 4.7.1, the daemon stays up and within its heap, and it restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, cliSender, svc, json } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { fixtureDns } from '../helpers/dns-server.js';
import { RawSmtp } from '../helpers/smtp-client.js';

test(
  "2,000 tiny MX messages from one sender into a daemon with a 96 MB heap: a minute's 120 taken, the rest deferred with 451 4.7.1; the daemon answers and restarts",
  { timeout: 180_000 },
  async (t) => {
    const dns = await fixtureDns(t);
    const dir = await tmpDir(t);
    const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
    await cliSender(base, dns);
    const env = { NODE_OPTIONS: '--max-old-space-size=96' };
    const d1 = await serve(base, { env, listeners: ['api', 'mx'] });
    t.after(() => d1.stop('SIGKILL'));
    const { client } = await RawSmtp.open(d1.urls.mx!);
    await client.cmd('EHLO flood.test');
    const replies = new Map<string, number>();
    const started = Date.now();
    for (let i = 0; i < 2000; i++) {
      const mail = await client.cmd('MAIL FROM:<flood@elsewhere.test>');
      let reply = mail;
      if (mail.startsWith('250')) {
        await client.cmd('RCPT TO:<hello@acme.test>');
        await client.cmd('DATA');
        reply = await client.cmd(`Subject: ${i}\r\n\r\nx\r\n.`);
      }
      const code = reply.slice(0, 9);
      replies.set(code, (replies.get(code) ?? 0) + 1);
    }
    const ended = Date.now();
    client.destroy();
    // 120 in a minute. A run that straddles a minute's turn may take more as the window slides: past
    // the turn the previous minute counts by the part of it still inside the last 60 s (rounded up),
    // so from the turn on at most 2 more a second (none when the run did not straddle one).
    const taken = replies.get('250 2.0.0') ?? 0;
    const turn = (Math.floor(started / 60_000) + 1) * 60_000;
    const slid = ended < turn ? 0 : Math.ceil((120 * (ended - turn)) / 60_000);
    assert.ok(taken >= 120 && taken <= 120 + slid, `taken: ${taken} (the window slid by ${slid})`);
    assert.equal(replies.get('451 4.7.1'), 2000 - taken, JSON.stringify(Object.fromEntries(replies)));
    assert.equal((await fetch(`${d1.urls.api}/healthz`)).status, 200);
    assert.equal(await d1.stop(), 0);
    const d2 = await serve(base, { env, listeners: ['api', 'mx'] });
    t.after(() => d2.stop('SIGKILL'));
    assert.equal((await fetch(`${d2.urls.api}/healthz`)).status, 200);
    assert.equal(await d2.stop(), 0);
    assert.equal(json(await svc([...base, 'inbox', 'list', '--limit', '500', '--json'])).length, taken);
  },
);

// A flood of tiny messages (426,917 once killed a 256 MB daemon and every restart), with the rates
// off so that nothing is refused: every message is taken into a 96 MB heap, and the daemon stops
// cleanly, restarts in that heap and still counts them all. 20,000 prove it in the suite (what a
// message keeps in memory is held to its own bound by test/src/inbox/memory.test.ts);
// SVC_FLOOD_MESSAGES=150000 runs the full size.
const FLOOD = Number(process.env.SVC_FLOOD_MESSAGES) || 20_000;
test(
  `${FLOOD.toLocaleString('en')} tiny MX messages from as many senders, rates off, into a daemon with a 96 MB heap: all taken, the daemon restarts and lists them`,
  { timeout: 600_000 },
  async (t) => {
    const dns = await fixtureDns(t);
    const dir = await tmpDir(t);
    const base = ['--store', `file:${dir}`, '--dns-server', dns.server];
    const key = await cliSender(base, dns);
    const env = { NODE_OPTIONS: '--max-old-space-size=96' };
    const d1 = await serve([...base, '--mx-rate-per-sender', '0', '--mx-rate-per-workspace', '0'], { env, listeners: ['api', 'mx'] });
    t.after(() => d1.stop('SIGKILL'));
    const total = FLOOD;
    const replies = new Map<string, number>();
    let next = 0;
    // Eight connections, each pipelining MAIL, RCPT and DATA (the MX offers PIPELINING).
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const { client } = await RawSmtp.open(d1.urls.mx!);
        await client.cmd('EHLO flood.test');
        while (next < total) {
          const i = next++;
          const envelope = [client.reply(), client.reply(), client.reply()];
          client.write(`MAIL FROM:<f${i}@elsewhere.test>\r\nRCPT TO:<hello@acme.test>\r\nDATA\r\n`);
          const lines = (await Promise.all(envelope)).map((r) => r.join('\n'));
          const reply = lines[2]!.startsWith('354') ? await client.cmd(`Subject: ${i}\r\n\r\nx\r\n.`) : lines.join(' | ');
          const code = reply.slice(0, 9);
          replies.set(code, (replies.get(code) ?? 0) + 1);
          if (client.closed) break;
        }
        client.destroy();
      }),
    );
    assert.deepEqual(Object.fromEntries(replies), { '250 2.0.0': total });
    assert.equal((await fetch(`${d1.urls.api}/healthz`)).status, 200);
    assert.equal(await d1.stop(), 0);
    const d2 = await serve(base, { env, listeners: ['api', 'mx'] });
    t.after(() => d2.stop('SIGKILL'));
    assert.equal((await fetch(`${d2.urls.api}/healthz`)).status, 200);
    const listed = (await (
      await fetch(`${d2.urls.api}/api/v2/inbox/items?limit=1`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { total: number };
    assert.equal(listed.total, total);
    assert.equal(await d2.stop(), 0);
  },
);
