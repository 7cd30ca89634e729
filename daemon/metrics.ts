// Prometheus metrics (docs/operating.md "Metrics"): `GET /metrics` in the text format, from
// prom-client, on a listener of its own (`--metrics-port`, bound to `--metrics-host`, loopback by
// default, so they are never open to the world by accident). Counters come from the mail log's
// events (src/event-log.ts: one tap, no call site of its own); the queue and webhook backlog are
// read from the store at each scrape; every store call is timed; Node's process metrics too. One
// registry per daemon, no global one.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Service } from '../src/service.js';
import type { Store } from '../src/store/types.js';
import { storeOperations } from '../src/store/types.js';
import { HTTP_SERVER_OPTIONS } from './http/guard.js';

/** Seconds: from a moment to a day (delivery delays), and from 1 ms to 10 s (a store call, a webhook). */
const DELAY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14_400, 86_400];
const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The daemon's own registry (never prom-client's global one). */
export const newRegistry = (): Registry => new Registry();

/** Times every operation of every store group (svc_store_call_seconds); done in place, before the service is built. */
export function timeStoreCalls(store: Store, registry: Registry): void {
  const calls = new Histogram({
    name: 'svc_store_call_seconds',
    help: 'Time of each store operation, by group and operation.',
    labelNames: ['group', 'op', 'outcome'],
    buckets: CALL_BUCKETS,
    registers: [registry],
  });
  const groups = store as unknown as Record<string, Record<string, unknown>>;
  for (const [group, ops] of Object.entries(storeOperations)) {
    const g = groups[group];
    if (!g) continue;
    for (const op of Object.keys(ops)) {
      const fn = g[op];
      if (typeof fn !== 'function') continue;
      const call = fn as (...args: unknown[]) => unknown;
      g[op] = function timed(this: unknown, ...args: unknown[]) {
        const end = calls.startTimer({ group, op });
        let out: unknown;
        try {
          out = call.apply(g, args);
        } catch (e) {
          end({ outcome: 'error' });
          throw e;
        }
        if (out instanceof Promise) {
          return out.then(
            (v) => (end({ outcome: 'ok' }), v),
            (e) => {
              end({ outcome: 'error' });
              throw e;
            },
          );
        }
        end({ outcome: 'ok' });
        return out;
      };
    }
  }
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/** The daemon's metrics on `registry`: counters fed by the service's events, gauges read at scrape. */
export function serviceMetrics(
  service: Service,
  registry: Registry,
  listeners: () => Array<{ name: string; stats?: () => Record<string, number> }>,
): () => void {
  const r = [registry];
  collectDefaultMetrics({ register: registry });
  const accepted = new Counter({
    name: 'svc_messages_accepted_total',
    help: 'Recipient records queued by the pipeline, by source (api, relay, broadcast, sequence, inbox, system).',
    labelNames: ['source'],
    registers: r,
  });
  const suppressed = new Counter({
    name: 'svc_messages_suppressed_total',
    help: 'Recipients not sent to because they are on the suppression list.',
    registers: r,
  });
  const deliveries = new Counter({
    name: 'svc_deliveries_total',
    help: 'Delivery attempts per recipient, by status (sent, deferred, bounced).',
    labelNames: ['status'],
    registers: r,
  });
  const bounces = new Counter({
    name: 'svc_bounces_total',
    help: 'Bounces at hand-off, by bounce class.',
    labelNames: ['class'],
    registers: r,
  });
  const delay = new Histogram({
    name: 'svc_delivery_delay_seconds',
    help: 'From acceptance to the hand-off that sent it.',
    buckets: DELAY_BUCKETS,
    registers: r,
  });
  // Log lines dropped for a reader that did not keep up (daemon/log.ts), read when scraped.
  let droppedSeen = 0;
  new Counter({
    name: 'svc_log_lines_dropped_total',
    help: "Log lines dropped because whatever reads the daemon's log did not keep up (it never waits for it).",
    registers: r,
    collect() {
      const n = service.deps.log.dropped?.() ?? 0;
      if (n > droppedSeen) this.inc(n - droppedSeen);
      droppedSeen = n;
    },
  });
  const webhookAttempts = new Counter({
    name: 'svc_webhook_attempts_total',
    help: 'Webhook attempts, by outcome (delivered, failed, gone).',
    labelNames: ['outcome'],
    registers: r,
  });
  const webhookTime = new Histogram({
    name: 'svc_webhook_duration_seconds',
    help: 'Time a webhook endpoint took to answer.',
    buckets: CALL_BUCKETS,
    registers: r,
  });
  const relaySessions = new Counter({ name: 'svc_relay_sessions_total', help: 'Relay connections ended.', registers: r });
  const relayMessages = new Counter({ name: 'svc_relay_messages_total', help: 'Messages the relay queued.', registers: r });
  const relayRefusals = new Counter({
    name: 'svc_relay_refusals_total',
    help: 'Relay logins refused.',
    labelNames: ['reason'],
    registers: r,
  });
  const mxSessions = new Counter({ name: 'svc_mx_sessions_total', help: 'MX connections ended.', registers: r });
  const mxMessages = new Counter({ name: 'svc_mx_messages_total', help: 'Messages the MX accepted.', registers: r });
  const mxRefusals = new Counter({
    name: 'svc_mx_refusals_total',
    help: 'MX refusals, by stage (mail, rcpt, data).',
    labelNames: ['stage'],
    registers: r,
  });
  // Zero from the start, so a rate() has a series before the first event.
  for (const s of ['sent', 'deferred', 'bounced']) deliveries.inc({ status: s }, 0);

  const off = service.events.listen((kind, f) => {
    switch (kind) {
      case 'accepted':
        accepted.inc({ source: String(f.source) }, Number(f.queued) || 0);
        suppressed.inc(Number(f.suppressed) || 0);
        return;
      case 'delivery':
        deliveries.inc({ status: String(f.status) });
        if (f.status === 'bounced') bounces.inc({ class: String(f.class ?? 'unknown') });
        if (f.status === 'sent' && typeof f.delay === 'number') delay.observe(f.delay);
        return;
      case 'webhook':
        webhookAttempts.inc({ outcome: String(f.outcome) });
        if (typeof f.ms === 'number') webhookTime.observe(f.ms / 1000);
        return;
      case 'relay session':
        relaySessions.inc();
        relayMessages.inc(Number(f.messages) || 0);
        return;
      case 'relay login-refused':
        relayRefusals.inc({ reason: String(f.reply ?? '').slice(0, 3) || 'unknown' });
        return;
      case 'mx accepted':
        mxMessages.inc();
        return;
      case 'mx session':
        mxSessions.inc();
        return;
      case 'mx refused':
        mxRefusals.inc({ stage: String(f.stage) });
        return;
    }
  });

  const { store, clock } = service.deps;
  new Gauge({
    name: 'svc_queue_depth',
    help: 'Outbound jobs not finished (queued, deferred or being handed off).',
    registers: r,
    async collect() {
      this.set(await store.queue.depth());
    },
  });
  new Gauge({
    name: 'svc_queue_oldest_seconds',
    help: 'Age of the oldest outbound job not finished (0 when the queue is empty).',
    registers: r,
    async collect() {
      const now = clock.now();
      const [oldest] = await store.queue.pending({ limit: 1 }, now.toISOString());
      this.set(oldest ? Math.max(0, (now.getTime() - Date.parse(oldest.created_at)) / 1000) : 0);
    },
  });
  new Gauge({
    name: 'svc_webhook_backlog',
    help: 'Webhook deliveries waiting to be attempted.',
    registers: r,
    async collect() {
      this.set(await store.webhooks.depth());
    },
  });
  new Gauge({
    name: 'svc_smtp_connections',
    help: 'Open SMTP connections, by listener (relay, mx).',
    labelNames: ['listener'],
    registers: r,
    collect() {
      for (const l of listeners()) {
        const s = l.stats?.();
        if (s && typeof s.connections === 'number') this.set({ listener: l.name }, s.connections);
      }
    },
  });
  new Gauge({
    name: 'svc_faults',
    help: 'Faults of the daemon open now (the ones GET /healthz shows), by kind.',
    labelNames: ['kind'],
    registers: r,
    collect() {
      this.reset();
      for (const f of service.faults.list()) this.set({ kind: f.kind }, 1);
    },
  });
  return off;
}

/** Serves GET /metrics from `registry` on host:port; anything else is 404. */
export async function listenMetrics(
  registry: Registry,
  host: string,
  port: number,
  guard: (server: Server) => void,
): Promise<MetricsListener> {
  const server: Server = createServer(HTTP_SERVER_OPTIONS, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
      (e: Error) => res.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${e.message}\n`),
    );
  });
  // Its connections and slow requests are bounded as the API's are (guard.ts).
  guard(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as { port: number };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
