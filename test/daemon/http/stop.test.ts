// A daemon's stop does not wait on keep-alive connections that go idle after it began (a browser's,
// once its event stream or its last request ended): the server closes each as it goes idle, rather
// than leaving it to fastify's 72-second keepAliveTimeout; a request in flight still gets its answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { startTestDaemon } from '../../helpers/daemon.js';

test('stopping the API lets a request in flight finish, then closes its keep-alive connection', { timeout: 60_000 }, async (t) => {
  const d = await startTestDaemon(t, { deliver: false });
  const key = await d.key();
  const agent = new Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const body = JSON.stringify({ from: 'hello@acme.test', to: ['jane@rcpt.test'], subject: 'x', body_text: 'x' });
  // A request in flight when the stop begins: its body comes in two halves, the stop between them.
  let socket: Socket | null = null;
  const answered = new Promise<number>((resolve, reject) => {
    const req = request(
      `${d.api}/api/v2/emails`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('socket', (s) => (socket = s));
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => req.end(body.slice(10)), 500);
  });
  await new Promise((r) => setTimeout(r, 200));
  const stopping = d.daemon.close();
  const status = await answered;
  assert.ok(status >= 200 && status < 600, `answered ${status}`);
  // Idle now, after the stop began: closed by the server, and the stop completes.
  const closed = new Promise<void>((r) => (socket!.destroyed ? r() : socket!.once('close', () => r())));
  const deadline = new Promise<'held'>((r) => setTimeout(() => r('held'), 30_000).unref());
  assert.notEqual(await Promise.race([closed.then(() => 'closed' as const), deadline]), 'held', 'the idle connection was closed');
  assert.notEqual(await Promise.race([stopping.then(() => 'stopped' as const), deadline]), 'held', 'the stop completed');
});
