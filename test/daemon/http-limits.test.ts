// The API listener's bounds (daemon/http/guard.ts), over raw sockets: connections capped in all and
// per address (503 at once, nothing read), a header block or a body that comes too slowly answered
// 408 and closed, while /healthz, the relay and the MX go on answering; and behind a trusted proxy
// the client X-Forwarded-For names is the one the sign-in limits and tracking see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startTestDaemon } from '../helpers/daemon.js';
import { RawSmtp } from '../helpers/smtp-client.js';

/** A raw connection to `url` from `local` (a loopback address of its own), and everything it is sent. */
async function raw(url: string, local = '127.0.0.1'): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const u = new URL(url);
  const socket = connect({ host: u.hostname, port: Number(u.port), localAddress: local });
  let got = '';
  socket.on('data', (d) => (got += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, received: () => got, closed };
}

/** Waits for the socket to be closed by the server (its answer then read whole), with a deadline. */
async function answerOf(c: Awaited<ReturnType<typeof raw>>, ms = 20_000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    c.closed,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms: ${c.received()}`)), ms))),
  ]);
  clearTimeout(timer);
  return c.received();
}

test('API: connections capped per address and in all (503 at connect); slow headers and slow bodies 408; the rest keeps answering', async (t) => {
  const d = await startTestDaemon(t, {
    env: { SVC_API_MAX_CONNECTIONS: '6', SVC_API_MAX_CONNECTIONS_PER_ADDRESS: '3', SVC_API_REQUEST_TIMEOUT: '3' },
  });
  const api = d.api;
  // Three idle connections from one address: the fourth from it is refused, one from elsewhere is not.
  const held = [];
  for (let i = 0; i < 3; i++) held.push(await raw(api));
  const fourth = await answerOf(await raw(api));
  assert.match(fourth, /^HTTP\/1\.1 503 /);
  assert.match(fourth, /\{"error":"too many connections from this address"\}$/);
  for (let i = 0; i < 3; i++) held.push(await raw(api, '127.0.0.2'));
  // Six open in all: a seventh, from a third address, is refused for the total.
  const seventh = await answerOf(await raw(api, '127.0.0.3'));
  assert.match(seventh, /^HTTP\/1\.1 503 /);
  assert.match(seventh, /\{"error":"too many connections"\}$/);
  for (const h of held) h.socket.destroy();
  await Promise.all(held.map((h) => h.closed));

  // A header block that never ends, and a body sent a byte at a time: 408, closed.
  const headers = await raw(api);
  headers.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
  const key = await d.key();
  const post = (auth: string) =>
    `POST /api/v2/emails HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`;
  const body = await raw(api);
  body.socket.write(post(`Authorization: Bearer ${key}\r\n`));
  // Without a key: answered 401 before the body is read, and the connection does not outlive its deadline.
  const keyless = await raw(api, '127.0.0.2');
  keyless.socket.write(post(''));
  const drip = setInterval(() => {
    body.socket.write(' ');
    keyless.socket.write(' ');
  }, 500);
  t.after(() => clearInterval(drip));
  // Meanwhile the daemon answers as usual.
  assert.deepEqual(await (await fetch(`${api}/healthz`)).json(), { ok: true });
  const { client, greeting } = await RawSmtp.open(d.daemon.url('relay'));
  assert.match(greeting[0]!, /^220 /);
  client.destroy();
  assert.match(await answerOf(headers), /^HTTP\/1\.1 408 /);
  const slow = await answerOf(body);
  clearInterval(drip);
  assert.match(slow, /^HTTP\/1\.1 408 /);
  assert.match(slow, /request timeout/);
  assert.match(await answerOf(keyless), /^HTTP\/1\.1 401 /);
  assert.match(d.logs.join(''), /api refused .*reason=request_timeout/);
  assert.match(d.logs.join(''), /api refused .*reason=too_many_connections_from_address client=127\.0\.0\.1/);
});
