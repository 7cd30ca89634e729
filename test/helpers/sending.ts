// A daemon ready to send: fixture DNS with a verified sender domain (acme.test) and recipient
// domains whose MX is the test's sink, a registered address and a key.
import { ManualClock, type Clock } from '../../src/clock.js';
import { fixtureDns, type FixtureDns } from './dns-server.js';
import { publish } from './domains.js';
import { sink, type Sink } from './sink.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import type { StoreLocation } from '../../src/config.js';
import type { Workspace } from '../../src/model/workspace.js';

export interface Sending extends Omit<TestDaemon, 'key'> {
  dns: FixtureDns;
  sink: Sink;
  ws: Workspace;
  key: string;
  post(body: unknown, key?: string, idempotencyKey?: string): Promise<{ status: number; body: any; headers: Headers }>;
  get(path: string, key?: string): Promise<{ status: number; body: any }>;
  /** Any REST call with a JSON body (or none). */
  call(method: string, path: string, body: unknown, key: string): Promise<{ status: number; body: any; headers: Headers }>;
}

/**
 * The hand-off's deadlines for a daemon on a clock moved by hand. A hand-off that fails for time
 * (the sink, in the test's own busy process, answering late) waits for a retry at a time the
 * clock never reaches, so the message stays queued: generous deadlines keep a slow machine from
 * failing the test. They are deadlines, never waited out when the sink answers.
 */
export const MANUAL_CLOCK_DEADLINES = { SVC_DNS_TIMEOUT: '5000', SVC_SMTP_TIMEOUT: '30000' };

export async function sending(
  t: { after(fn: () => unknown): void },
  opts: { plan?: string; clock?: Clock; env?: Record<string, string>; store?: StoreLocation; deliver?: boolean; schedule?: boolean } = {},
): Promise<Sending> {
  const dns = await fixtureDns(t);
  const s = await sink(t);
  const d = await startTestDaemon(t, {
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.store ? { store: opts.store } : {}),
    deliver: opts.deliver ?? true,
    ...(opts.schedule === undefined ? {} : { schedule: opts.schedule }),
    env: {
      SVC_DNS_SERVERS: dns.server,
      SVC_DNS_TIMEOUT: '300',
      SVC_DIRECT_PORT: String(s.port),
      SVC_SMTP_TIMEOUT: '2000',
      ...(opts.clock ? MANUAL_CLOCK_DEADLINES : {}),
      ...opts.env,
    },
  });
  const { service } = d.daemon;
  const ws = await service.workspaces.create('acme', opts.plan ?? 'scale');
  const domain = await service.domains.add(ws, 'acme.test');
  publish(dns, 'acme.test', domain.records);
  const v = await service.domains.verify(ws, 'acme.test');
  if (!v.passed) throw new Error(`acme.test did not verify: ${JSON.stringify(v.view.records)}`);
  await service.addresses.add(ws, 'hello@acme.test');
  const key = (await service.keys.create(ws, { scopes: 'send,read' })).key;
  const call = async (method: string, path: string, body: unknown, k: string, idem?: string) => {
    const r = await fetch(`${d.api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${k}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(idem ? { 'idempotency-key': idem } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
  };
  return {
    ...d,
    dns,
    sink: s,
    ws,
    key,
    post: (body, k = key, idem) => call('POST', '/api/v2/emails', body, k, idem),
    get: (path, k = key) => call('GET', path, undefined, k),
    call,
  };
}

/** Polls the message until it leaves `queued` (delivery runs in the daemon's worker). */
export async function settled(s: Sending, id: string, ms = 5000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await s.get(`/api/v2/messages/${id}`);
    if (r.status === 200 && r.body.status !== 'queued') return r.body;
    if (Date.now() > deadline) throw new Error(`message ${id} still queued after ${ms} ms`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

/** A simple email body from hello@acme.test. */
export const mail = (to: string[], over: Record<string, unknown> = {}) => ({
  from: 'hello@acme.test',
  to,
  subject: 'Hi',
  body_text: 'x',
  ...over,
});

/**
 * A sending daemon on a moved clock whose hand-offs the test runs itself (`deliver`), so retries are
 * reached by moving the clock, never by waiting.
 */
export async function handOffByHand(t: { after(fn: () => unknown): void }, env: Record<string, string> = {}, store?: StoreLocation) {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  const s = await sending(t, { clock, deliver: false, env, ...(store ? { store } : {}) });
  const worker = s.daemon.workers.find((w) => w.name === 'delivery')!;
  return { s, clock, deliver: () => worker.runOnce() };
}

/** The workspace's messages by recipient, and one message in full. */
export const byTo = async (s: Sending) =>
  Object.fromEntries((await s.get('/api/v2/messages?limit=500')).body.data.map((m: any) => [m.to, m]));
export const full = async (s: Sending, id: string) => (await s.get(`/api/v2/messages/${id}`)).body;
