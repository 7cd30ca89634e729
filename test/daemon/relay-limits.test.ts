// The relay's resource bounds (issue: "bounded resources"): connection caps per address and in
// all, a cap on message data held in memory at once, a bounded failed-AUTH map, and an open-file
// limit that the relay never uses up (the API and admin commands keep working).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { sending } from '../helpers/sending.js';
import { RawSmtp, plain } from '../helpers/smtp-client.js';
import { svc, json, SVC } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';
import { startRelay, DEFAULT_RELAY, type RelayStats } from '../../daemon/relay.js';
import { tlsIdentity } from '../../src/relay/tls.js';
import { until } from '../helpers/until.js';

/**
 * Opens a raw connection from `from` (a loopback address) and resolves with its first line, or with
 * `(closed)` when the server closes first, or `(no greeting)` after 15 s (a server out of
 * descriptors accepts nothing: without a deadline this waited for ever on a busy machine).
 */
function firstLine(url: string, from: string): Promise<{ socket: Socket; line: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(u.port), host: u.hostname, localAddress: from });
    const timer = setTimeout(() => resolve({ socket, line: '(no greeting)' }), 15_000);
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString();
      const nl = buf.indexOf('\r\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve({ socket, line: buf.slice(0, nl) });
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ socket, line: '(closed)' });
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

const relayStats = (s: { daemon: { listeners: Array<{ name: string; stats?: () => Record<string, number> }> } }) =>
  s.daemon.listeners.find((l) => l.name === 'relay')!.stats!() as unknown as RelayStats;

test('connection caps: per address and in all, 421 4.7.0 beyond them, free again when one closes', async (t) => {
  const s = await sending(t, { deliver: false, env: { SVC_RELAY_MAX_CONNECTIONS: '8', SVC_RELAY_MAX_CONNECTIONS_PER_ADDRESS: '5' } });
  const url = s.daemon.url('relay');
  const open: Socket[] = [];
  t.after(() => open.forEach((x) => x.destroy()));
  for (let i = 0; i < 5; i++) {
    const c = await firstLine(url, '127.0.0.1');
    open.push(c.socket);
    assert.match(c.line, /^220 /);
  }
  const sixth = await firstLine(url, '127.0.0.1');
  assert.equal(sixth.line, '421 4.7.0 Too many connections from your address, try again later');
  await new Promise((r) => sixth.socket.once('close', r));
  for (let i = 0; i < 3; i++) {
    const c = await firstLine(url, '127.0.0.2');
    open.push(c.socket);
    assert.match(c.line, /^220 /);
  }
  assert.equal((await firstLine(url, '127.0.0.3')).line, '421 4.7.0 Too many connections, try again later');
  assert.deepEqual([relayStats(s).connections, relayStats(s).addresses], [8, 2]);
  // The API answers while the relay is full.
  assert.equal((await fetch(`${s.api}/healthz`)).status, 200);
  // One closes: a place is free again.
  open.shift()!.destroy();
  for (let i = 0; i < 50 && relayStats(s).connections > 7; i++) await new Promise((r) => setTimeout(r, 10));
  const again = await firstLine(url, '127.0.0.1');
  open.push(again.socket);
  assert.match(again.line, /^220 /);
  console.log(`# relay connections: ${JSON.stringify(relayStats(s))}`);
});

test('a client that never holds more than the per-address cap is never refused, however fast it reconnects after QUIT', async (t) => {
  const s = await sending(t, { deliver: false, env: { SVC_RELAY_MAX_CONNECTIONS_PER_ADDRESS: '2' } });
  const url = s.daemon.url('relay');
  // Two at a time, each opened only once the one before it was answered 221 and let go.
  const greetings: string[] = [];
  const lane = async () => {
    for (let i = 0; i < 40; i++) {
      const { client, greeting } = await RawSmtp.open(url);
      greetings.push(greeting.join());
      if (!/^220 /.test(greeting.join())) {
        client.destroy();
        continue;
      }
      await client.cmd('EHLO lane.test');
      assert.match(await client.cmd('QUIT'), /^221 /);
      client.destroy();
    }
  };
  await Promise.all([lane(), lane()]);
  assert.deepEqual(
    greetings.filter((g) => !/^220 /.test(g)),
    [],
    'no 421 for a client within the cap',
  );
  assert.equal(greetings.length, 80);
});

test('data memory cap: a DATA that would pass it gets 451 4.3.1 and nothing is queued; the memory is given back', async (t) => {
  const s = await sending(t, { deliver: false, env: { SVC_RELAY_DATA_MEMORY: '3mb' } });
  const url = s.daemon.url('relay');
  const session = async () => {
    const { client } = await RawSmtp.open(url);
    await client.cmd('EHLO x');
    assert.equal(await client.cmd(`AUTH PLAIN ${plain(s.key)}`), '235 2.7.0 Authentication successful');
    return client;
  };
  const body = (tag: string) => `Subject: ${tag}\r\nTo: jane@rcpt.test\r\n\r\n${('x'.repeat(998) + '\r\n').repeat(2000)}`;
  const a = await session();
  const b = await session();
  t.after(() => {
    a.destroy();
    b.destroy();
  });
  for (const c of [a, b]) {
    await c.cmd('MAIL FROM:<hello@acme.test>');
    await c.cmd('RCPT TO:<jane@rcpt.test>');
    assert.match(await c.cmd('DATA'), /^354 /);
  }
  // A holds 2 MB in memory (its DATA not finished yet) ...
  a.write(body('big-a'));
  for (let i = 0; i < 200 && relayStats(s).dataHeld < 2_000_000; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(relayStats(s).dataHeld >= 2_000_000, `held ${relayStats(s).dataHeld}`);
  // ... so B's 2 MB would pass 3 MB: refused for now.
  assert.equal(await b.cmd(body('big-b') + '\r\n.'), '451 4.3.1 Insufficient system resources: too much mail in progress, try again later');
  assert.match(await a.cmd('\r\n.'), /^250 2\.0\.0 OK: queued as /);
  assert.equal(relayStats(s).dataHeld, 0, 'all given back');
  // B again, now that A is done: accepted.
  await b.cmd('MAIL FROM:<hello@acme.test>');
  await b.cmd('RCPT TO:<jane@rcpt.test>');
  await b.cmd('DATA');
  assert.match(await b.cmd(body('big-b2') + '\r\n.'), /^250 2\.0\.0 OK: queued as /);
  const subjects = (await s.get('/api/v2/messages')).body.data.map((m: { subject: string }) => m.subject).sort();
  assert.deepEqual(subjects, ['big-a', 'big-b2']);
  // A connection that breaks in the middle of DATA gives its memory back too.
  const c = await session();
  await c.cmd('MAIL FROM:<hello@acme.test>');
  await c.cmd('RCPT TO:<jane@rcpt.test>');
  await c.cmd('DATA');
  c.write(body('broken'));
  for (let i = 0; i < 200 && relayStats(s).dataHeld < 2_000_000; i++) await new Promise((r) => setTimeout(r, 10));
  c.destroy();
  for (let i = 0; i < 200 && relayStats(s).dataHeld > 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(relayStats(s).dataHeld, 0);
});

test('the failed-AUTH map is bounded: past its size the oldest address is forgotten', async (t) => {
  const s = await sending(t, { deliver: false });
  const relay = await startRelay(s.daemon.service, {
    ...DEFAULT_RELAY,
    host: '127.0.0.1',
    port: 0,
    tls: await tlsIdentity(s.daemon.service.deps),
    maxTrackedAddresses: 3,
  });
  t.after(() => relay.close());
  for (let i = 1; i <= 6; i++) {
    const from = `127.0.0.${10 + i}`;
    const u = new URL(relay.url);
    const { socket } = await firstLine(relay.url, from);
    const client = await new Promise<string>((resolve) => {
      let buf = '';
      socket.on('data', (d) => {
        buf += d.toString();
        if (/(^|\r\n)535 /.test(buf)) resolve(buf);
      });
      socket.write(`EHLO x\r\nAUTH PLAIN ${plain('svc_' + 'f'.repeat(48))}\r\n`);
    });
    assert.match(client, /535 5\.7\.8/);
    socket.destroy();
    assert.ok(u.port);
    assert.ok(relay.stats().trackedAuthFailures <= 3, `tracked ${relay.stats().trackedAuthFailures}`);
  }
  assert.equal(relay.stats().trackedAuthFailures, 3);
});

test('under a low open-file limit the relay and the MX together keep a quarter of the descriptors for the API and admin commands', async (t) => {
  if (spawnSync('prlimit', ['--version']).error) return t.skip('prlimit is not installed');
  const dir = await tmpDir(t);
  const store = ['--store', `file:${dir}`];
  json(await svc([...store, 'workspaces', 'create', 'acme', '--json']));
  const child = spawn(
    'prlimit',
    [
      '--nofile=300:300',
      process.execPath,
      SVC,
      'serve',
      ...store,
      '--api-port',
      '0',
      '--relay-port',
      '0',
      '--mx-port',
      '0',
      '--no-delivery',
    ],
    {
      env: { ...process.env, NO_COLOR: '1', SVC_RELAY_MAX_CONNECTIONS_PER_ADDRESS: '1000', SVC_MX_MAX_CONNECTIONS_PER_ADDRESS: '1000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const urls: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      for (const m of out.matchAll(/(api|relay|mx) listening on (\S+)/g)) urls[m[1]!] = m[2]!;
      if (urls.api && urls.relay && urls.mx) resolve();
    });
    child.once('exit', () => reject(new Error(`serve exited: ${stderr}`)));
  });
  assert.match(stderr, /relay: at most \d+ connections \(not 500\): the open-file limit is 300/);
  assert.match(stderr, /mx: at most \d+ connections \(not 500\): the open-file limit is 300/);
  const sockets: Socket[] = [];
  t.after(() => sockets.forEach((x) => x.destroy()));
  // 400 idle connections to each listener, held open.
  for (const name of ['relay', 'mx'] as const) {
    let greeted = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: 400 }, async () => {
        const c = await firstLine(urls[name]!, '127.0.0.1');
        // A refused client hangs up, as a real one does; a greeted one stays, idle.
        if (c.line.startsWith('220')) {
          greeted++;
          sockets.push(c.socket);
        } else {
          refused++;
          c.socket.destroy();
        }
      }),
    );
    console.log(`# fd limit 300: ${greeted} ${name} connections greeted, ${refused} refused`);
    assert.ok(refused > 0 && greeted > 0, name);
  }
  // Once the burst of refusals has been closed (the last of them may still be in the daemon's queue
  // for a moment), the API answers while both listeners stay full.
  const health = await until(
    'the API answering',
    () =>
      fetch(`${urls.api}/healthz`).then(
        (r) => r.status,
        () => 0,
      ),
    (st) => st === 200,
    undefined,
    200,
  );
  assert.equal(health, 200);
  const key = await svc([...store, 'keys', 'create', '--json']);
  assert.equal(key.code, 0, key.stderr);
  assert.doesNotMatch(key.stderr, /at .*\.js:\d+/, 'no stack trace');
});
