import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { SMTPServer } from 'smtp-server';
import { SmtpPool, type SmtpError } from '../../../src/send/smtp-pool.js';

interface Server {
  port: number;
  /** Connections opened so far, and messages received. */
  connects: number;
  messages: string[];
  live: Set<{ close(): void }>;
  /** Pools on this server, closed before it is. */
  pools: SmtpPool[];
  /** What the server waits for before it answers a message's data (nothing unless a test sets it). */
  hold: (body: string) => Promise<void>;
}

/** A loopback SMTP server that counts connections, refuses MAIL FROM `refused@...`, keeps bodies. */
async function server(t: TestContext): Promise<Server> {
  const s: Server = { port: 0, connects: 0, messages: [], live: new Set(), pools: [], hold: async () => {} };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onConnect: (_session, cb) => {
      s.connects++;
      cb();
    },
    onMailFrom: (a, _session, cb) =>
      a.address.startsWith('refused@') ? cb(Object.assign(new Error('sender refused'), { responseCode: 550 })) : cb(),
    onData: (stream, _session, cb) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        s.messages.push(body);
        void s.hold(body).then(() => cb());
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  s.port = (smtp.server.address() as { port: number }).port;
  s.live = (smtp as unknown as { connections: Set<{ close(): void }> }).connections;
  t.after(async () => {
    for (const p of s.pools) p.close();
    await new Promise<void>((r) => smtp.close(() => r()));
  });
  return s;
}

function pool(s: Pick<Server, 'port' | 'pools'>, over: Partial<ConstructorParameters<typeof SmtpPool>[0]> = {}): SmtpPool {
  const p = new SmtpPool({
    host: '127.0.0.1',
    port: s.port,
    secure: false,
    opportunisticTLS: true,
    tls: {},
    name: 'svc.test',
    timeoutMs: 2000,
    maxConnections: 2,
    maxMessages: 1000,
    idleMs: 30_000,
    ...over,
  });
  s.pools.push(p);
  return p;
}

const msg = (n: number) => Buffer.from(`Subject: ${n}\r\n\r\nbody ${n}\r\n.leading dot\r\n`);
const envelope = { from: 'a@acme.test', to: ['b@rcpt.test'] };

test('SMTP pool: connections are reused, and never more than maxConnections at once', async (t) => {
  const s = await server(t);
  const p = pool(s);
  for (let i = 0; i < 3; i++) await p.send(envelope, msg(i));
  assert.equal(s.connects, 1);
  await Promise.all(Array.from({ length: 20 }, (_, i) => p.send(envelope, msg(i))));
  assert.equal(s.connects, 2);
  assert.equal(s.messages.length, 23);
  // Dot-stuffing is done on the way out and undone by the server.
  assert.match(s.messages[0]!, /^\.leading dot$/m);
});

test('SMTP pool: a refused message leaves the connection in use for the next one', async (t) => {
  const s = await server(t);
  const p = pool(s, { maxConnections: 1 });
  await assert.rejects(p.send({ from: 'refused@acme.test', to: ['b@rcpt.test'] }, msg(1)), (e: SmtpError) => e.responseCode === 550);
  await p.send(envelope, msg(2));
  assert.equal(s.connects, 1);
  assert.equal(s.messages.length, 1);
});

test('SMTP pool: a connection the server dropped while idle is replaced, and the message goes out', async (t) => {
  const s = await server(t);
  const p = pool(s, { maxConnections: 1 });
  await p.send(envelope, msg(1));
  for (const c of s.live) c.close();
  // Sent at once, before or after the client has seen the close: either way it is not lost.
  await p.send(envelope, msg(2));
  assert.equal(s.connects, 2);
  assert.equal(s.messages.length, 2);
});

test('SMTP pool: after maxMessages a connection is closed and a fresh one opened', async (t) => {
  const s = await server(t);
  const p = pool(s, { maxMessages: 2 });
  for (let i = 0; i < 5; i++) await p.send(envelope, msg(i));
  assert.equal(s.connects, 3);
});

test('SMTP pool: nothing listening is a connection error, and the pool keeps trying afresh', async (t) => {
  const s = await server(t);
  const closed = new SMTPServer({ logger: false });
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.server.address() as { port: number }).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const p = pool({ port, pools: s.pools }, { maxConnections: 1 });
  for (let i = 0; i < 3; i++)
    await assert.rejects(
      p.send(envelope, msg(i)),
      (e: SmtpError) => e.code === 'ESOCKET' && e.command === 'CONN' && e.responseCode === undefined,
    );
  // The slots were given back: a pool on a live server still sends after failures of its own.
  const ok = pool(s, { maxConnections: 1 });
  await ok.send(envelope, msg(9));
  assert.equal(s.messages.length, 1);
});

test('SMTP pool: urgent (transactional) senders get the next connection ahead of bulk ones waiting', async (t) => {
  const s = await server(t);
  const p = pool(s, { maxConnections: 1 });
  const sent = [p.send(envelope, msg(0), false)];
  // While the first holds the one connection: four bulk copies wait, then one urgent send.
  for (let i = 1; i <= 4; i++) sent.push(p.send(envelope, msg(i), false));
  sent.push(p.send(envelope, msg(99), true));
  await Promise.all(sent);
  const order = s.messages.map((m) => Number(/^Subject: (\d+)/m.exec(m)![1]));
  assert.deepEqual(order, [0, 99, 1, 2, 3, 4]);
});

test('SMTP pool: bulk senders never hold the last connection; an urgent one takes it while they wait', async (t) => {
  const s = await server(t);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  // Bulk messages are answered only once the urgent one went through.
  s.hold = (body) => (/^Subject: 99/m.test(body) ? Promise.resolve() : held);
  const p = pool(s, { maxConnections: 3 });
  const bulk = [1, 2, 3, 4].map((i) => p.send(envelope, msg(i), false));
  // Two bulk copies are on the server (two connections), the other two wait for one of them.
  await waitUntil(() => s.messages.length === 2);
  const urgent = await withDeadline(p.send(envelope, msg(99), true), 5000);
  assert.ok(urgent.accepted.length, 'the urgent message went out while bulk ones held their connections');
  assert.equal(s.connects, 3);
  release();
  await withDeadline(Promise.all(bulk), 5000);
  assert.deepEqual(
    s.messages.map((m) => Number(/^Subject: (\d+)/m.exec(m)![1])).sort((a, b) => a - b),
    [1, 2, 3, 4, 99],
  );
  assert.equal(s.connects, 3, 'the bulk ones took the free connections in turn, never a fourth');
});

test('SMTP pool: bulk senders open connections of their own rather than take the last idle one (kept warm for urgent mail)', async (t) => {
  const s = await server(t);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  s.hold = (body) => (/^Subject: 99/m.test(body) ? Promise.resolve() : held);
  const p = pool(s, { maxConnections: 3 });
  await p.send(envelope, msg(99), true);
  assert.equal(s.connects, 1);
  const bulk = [1, 2].map((i) => p.send(envelope, msg(i), false));
  await waitUntil(() => s.messages.length === 3);
  assert.equal(s.connects, 3, 'two new connections for the bulk copies');
  await withDeadline(p.send(envelope, msg(99), true), 5000);
  assert.equal(s.connects, 3, 'the urgent one found the warm connection');
  release();
  await withDeadline(Promise.all(bulk), 5000);
});

test('SMTP pool: with one connection allowed, bulk senders may use it', async (t) => {
  const s = await server(t);
  const p = pool(s, { maxConnections: 1 });
  await withDeadline(Promise.all([1, 2].map((i) => p.send(envelope, msg(i), false))), 5000);
  assert.equal(s.messages.length, 2);
});

async function waitUntil(ok: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('waited too long');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
