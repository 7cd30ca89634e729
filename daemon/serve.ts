// The daemon's lifecycle (DESIGN.md "A lifecycle you can read"): open the store, start the admin
// socket, build and start each listener in order, print one ready line per listener; on stop,
// stop accepting, let work in flight finish, close the store.
import type { Clock, Random } from '../src/clock.js';
import { publicSettingsWarnings, type Config } from '../src/config.js';
import type { Log } from '../src/log.js';
import { isSvcError, SvcError } from '../src/errors.js';
import { trackConnections } from './http/connections.js';
import { createService, type Service } from '../src/service.js';
import { openStore } from '../src/store/open.js';
import type { Store } from '../src/store/types.js';
import { socketPath } from '../src/store/file/admin-protocol.js';
import { buildApi } from './http/api.js';
import { startAdminSocket } from './admin-socket.js';
import { DEFAULT_RELAY, startRelay } from './relay.js';
import { DEFAULT_MX, startMx } from './mx.js';
import { listenerCaps } from './fd-limit.js';
import { compileProxies, guardHttp, httpLimits as limitsOf } from './http/guard.js';
import { tlsIdentity } from '../src/relay/tls.js';
import { changedKeys, LIVE, type ReloadResult } from './reload.js';
import { statusReporter } from './status.js';
import { createSecureContext } from 'node:tls';
import { domainRecheck, type Worker } from './workers/domain-recheck.js';
import { deliveryWorker } from './workers/outbound-queue.js';
import { retentionWorker } from './workers/retention.js';
import { trialWorker } from './workers/trial.js';
import { webhookWorker } from './workers/webhooks.js';
import { fanOutWorker } from './workers/fan-out.js';
import { schedulerWorker } from './workers/scheduler.js';
import { startTicks } from './workers/ticks.js';

export interface Listener {
  /** api, relay, mx: the word scripts look for in the ready line. */
  name: string;
  url: string;
  close(): Promise<void>;
  /** What the listener holds now (connections, memory), for status views and tests. */
  stats?: () => Record<string, number>;
}

export interface Daemon {
  service: Service;
  listeners: Listener[];
  workers: Worker[];
  /** The periodic ticks (name and cron expression), for status views. */
  ticks: ReadonlyArray<{ name: string; cron: string }>;
  url(name: string): string;
  /** SIGHUP: takes what can change live from a config read again (reload.ts); the log level is the caller's. */
  reload(next: Config): Promise<ReloadResult>;
  close(): Promise<void>;
}

export interface DaemonOptions {
  config: Config;
  clock: Clock;
  random: Random;
  log: Log;
  /** Where ready lines go (stdout). */
  ready: (line: string) => void;
  /** The base URL follows the API's real port (CONTRACT.md default http://HOST:API_PORT). */
  baseUrlDerived: boolean;
  /** Postgres: apply pending migrations at start (`svc serve --migrate`). */
  migrate?: boolean;
  /** Run the delivery loop (`--no-delivery` and tests that drive it by hand turn it off). */
  deliver?: boolean;
  /** Run the webhook loop (tests that drive it by hand with a moved clock turn it off). */
  dispatch?: boolean;
  /** Run the sequence scheduler (tests that drive it by hand with a moved clock turn it off). */
  schedule?: boolean;
  /** Run the broadcast fan-out (tests that drive it by hand turn it off; --no-delivery does not: making copies is queueing). */
  fanOut?: boolean;
}

const hostInUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

/**
 * A schema that is behind refuses the start; an unreachable database does not: the daemon comes
 * up, answers 503 (and /healthz 503) until the database is back, and recovers by itself.
 */
async function checkStore(store: Store, log: Log): Promise<void> {
  try {
    await store.health();
  } catch (e) {
    if (isSvcError(e) && e.kind === 'store_unavailable') log.warn(`${e.message}; starting anyway, answering 503 until it is back`);
    else throw e;
  }
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const config = { ...opts.config };
  const { log } = opts;
  // Stopped in this order: listeners stop accepting, workers drain, then the admin socket and the
  // store close (each list in reverse order of starting).
  const stops = {
    listeners: [] as Array<() => Promise<void>>,
    workers: [] as Array<() => Promise<void>>,
    base: [] as Array<() => Promise<void>>,
  };
  const listeners: Listener[] = [];
  let ready = false;
  const close = async () => {
    ready = false;
    for (const list of [stops.listeners, stops.workers, stops.base]) {
      for (const stop of list.reverse()) await stop().catch((e: Error) => log.error(`while stopping: ${e.message}`));
      list.length = 0;
    }
  };

  try {
    const store: Store = await openStore(config.store, { role: 'serve', log, migrate: opts.migrate ?? false, check: false });
    stops.base.push(() => store.close());
    // Metrics (--metrics-port): every store call timed from the start, before the service uses it.
    // prom-client is loaded only then (start-up time of a daemon without metrics).
    const metricsKit = config.metricsPort !== undefined ? await import('./metrics.js') : null;
    const registry = metricsKit ? metricsKit.newRegistry() : null;
    if (metricsKit && registry) metricsKit.timeStoreCalls(store, registry);
    await checkStore(store, log);
    // Said at every start until the operator repairs the store (svc store repair --apply).
    const warning = store.startupWarning?.();
    if (warning) log.warn(`store: ${warning}`);
    const note = store.startupNote?.();
    if (note) log.info(`store: ${note}`);
    // The daemon hears what other processes on the store announce (other daemons and commands on
    // one Postgres; on a file store, commands speak to it over the admin socket).
    const service = await createService({ store, config, clock: opts.clock, random: opts.random, log }, { hear: true });
    stops.base.push(async () => service.bus.close());
    stops.base.push(() => service.inbox.close());
    if (config.store.kind === 'file') {
      const admin = await startAdminSocket(socketPath(config.store.dir), store, log, service.bus);
      stops.base.push(() => admin.close());
    }

    // One share of the open-file limit for every listener (fd-limit.ts); the HTTP ones' bounds.
    const caps = listenerCaps(config, log);
    const httpLimits = (maxConnections: number, perAddress: number) =>
      limitsOf({
        maxConnections,
        maxConnectionsPerAddress: perAddress,
        requestTimeoutMs: config.apiRequestTimeoutSeconds * 1000,
        ...(config.trustedProxies.length ? { trusted: compileProxies(config.trustedProxies) } : {}),
      });
    const onRefuse = (listener: string) => (kind: string, ip: string) =>
      service.deps.events?.event('warn', `${listener} refused`, { reason: kind, client: ip });

    const api = await buildApi(service, { ready: () => ready });
    const connections = trackConnections(api.server);
    const apiGuard = guardHttp(api.server, httpLimits(caps.api, config.apiMaxConnectionsPerAddress), onRefuse('api'));
    stops.base.push(async () => apiGuard.close());
    await listening('api', '--api-port', 'SVC_API_PORT', config.host, config.apiPort, () =>
      api.listen({ host: config.host, port: config.apiPort }),
    );
    const addr = api.server.address();
    const port = typeof addr === 'object' && addr ? addr.port : config.apiPort;
    const apiUrl = `http://${hostInUrl(config.host)}:${port}`;
    if (opts.baseUrlDerived) config.baseUrl = apiUrl;
    // Keep-alive connections that go idle while the API closes are closed as they do (connections.ts).
    const closeApi = async () => {
      const sweep = setInterval(() => connections.closeIdle(), 100);
      try {
        await api.close();
      } finally {
        clearInterval(sweep);
      }
    };
    listeners.push({ name: 'api', url: apiUrl, close: closeApi, stats: () => ({ ...apiGuard.stats() }) });
    stops.listeners.push(closeApi);

    const relayMax = caps.relay;
    const tls = await tlsIdentity(service.deps);
    const relay = await listening('relay', '--relay-port', 'SVC_RELAY_PORT', config.host, config.relayPort, () =>
      startRelay(service, {
        ...DEFAULT_RELAY,
        host: config.host,
        port: config.relayPort,
        tls,
        maxConnectionMs: config.relayConnectionSeconds * 1000,
        maxConnections: relayMax,
        maxConnectionsPerAddress: config.relayMaxConnectionsPerAddress,
        dataMemory: config.relayDataMemory,
      }),
    );
    listeners.push({ name: 'relay', url: relay.url, close: relay.close, stats: () => ({ ...relay.stats() }) });
    stops.listeners.push(relay.close);

    const mx = await listening('mx', '--mx-port', 'SVC_MX_PORT', config.host, config.mxPort, () =>
      startMx(service, {
        ...DEFAULT_MX,
        host: config.host,
        port: config.mxPort,
        tls,
        maxConnections: caps.mx,
        maxConnectionsPerAddress: config.mxMaxConnectionsPerAddress,
        dataMemory: config.mxDataMemory,
      }),
    );
    listeners.push({ name: 'mx', url: mx.url, close: mx.close, stats: mx.stats });
    stops.listeners.push(mx.close);

    if (metricsKit && registry) {
      const unheard = metricsKit.serviceMetrics(service, registry, () => listeners);
      stops.base.push(async () => unheard());
      const metrics = await metricsKit.listenMetrics(registry, config.metricsHost, config.metricsPort!, (server) => {
        const guard = guardHttp(server, httpLimits(caps.metrics, caps.metrics), onRefuse('metrics'));
        stops.base.push(async () => guard.close());
      });
      listeners.push({ name: 'metrics', url: metrics.url, close: metrics.close });
      stops.listeners.push(metrics.close);
    }

    // Workers wake when work is announced on the bus (and poll besides).
    const delivery = deliveryWorker(service, { start: opts.deliver ?? true });
    const webhooks = webhookWorker(service, { start: opts.dispatch ?? true });
    const scheduler = schedulerWorker(service, { start: opts.schedule ?? true });
    const retention = retentionWorker(service);
    const trial = trialWorker(service);
    const workers: Worker[] = [
      delivery,
      webhooks,
      fanOutWorker(service, { start: opts.fanOut ?? true }),
      scheduler,
      domainRecheck(service, config.domainRecheckSeconds, log),
      retention,
      trial,
    ];
    for (const w of workers) stops.workers.push(() => w.stop());
    // The periodic ticks, in one place (ticks.ts); they stop first.
    const ticks = startTicks(
      [
        { name: 'due sequence steps', cron: '*/10 * * * * *', run: () => ((opts.schedule ?? true) ? scheduler.poke() : undefined) },
        { name: 'retention', cron: '0 7 * * * *', run: () => retention.tick() },
        { name: 'trial warnings', cron: '0 37 * * * *', run: () => trial.tick() },
      ],
      log,
    );
    stops.workers.push(() => ticks.stop());
    // Opens and clicks answered before the stop are written before the store closes.
    stops.workers.push(() => service.tracking.drain());

    // What `svc status` shows of this daemon, written every few seconds, removed at a clean stop.
    const status = statusReporter(service, { listeners: () => listeners, ticks: ticks.ticks });
    stops.workers.push(() => status.stop());

    for (const l of listeners) opts.ready(`svc: ${l.name} listening on ${l.url}`);
    for (const w of publicSettingsWarnings(config)) log.warn(w);
    // A first run (no workspace yet, as after `npm start` on a fresh clone): where things are, and what next.
    void store.workspaces.list().then(
      (all) => {
        if (all.length) return;
        const at = (name: string) => listeners.find((l) => l.name === name)?.url ?? '?';
        log.info(
          `first run: the REST API and web app are at ${at('api')} (/api/v2, /app/), the SMTP relay at ${at('relay')}, the inbound MX at ${at('mx')}`,
        );
        log.info(
          'next: svc workspaces create NAME; svc keys create --workspace NAME; svc users create YOU@EXAMPLE --role owner --workspace NAME (README "Five minutes with svc"; svc doctor checks the set-up)',
        );
      },
      () => {},
    );
    // Without a usable system sender the log says so once, now.
    void service.systemMail.check().catch(() => {});
    ready = true;
    return {
      service,
      listeners,
      workers,
      ticks: ticks.ticks,
      url: (name) => {
        const l = listeners.find((x) => x.name === name);
        if (!l) throw new Error(`no listener ${name}`);
        return l.url;
      },
      async reload(next) {
        // A derived base URL follows the API's real port, which the new config cannot know.
        if (opts.baseUrlDerived) next = { ...next, baseUrl: config.baseUrl };
        const changed = changedKeys(config, next);
        const applied: string[] = changed.filter((k) => LIVE.has(k));
        if (applied.includes('outbound') || applied.includes('outboundCa')) {
          delivery.reroute(next.outbound, next.outboundCa);
          config.outbound = next.outbound;
          config.outboundCa = next.outboundCa;
        }
        const tlsChanged = applied.includes('tlsCert') || applied.includes('tlsKey');
        // The operator's files are read again even when their paths stay (a renewed certificate).
        if (tlsChanged || next.tlsCert) {
          // Read and checked before either listener changes: a bad pair keeps the old one.
          const tls = await tlsIdentity({ ...service.deps, config: { ...config, tlsCert: next.tlsCert, tlsKey: next.tlsKey } });
          try {
            createSecureContext({ cert: tls.cert, key: tls.key });
          } catch (e) {
            throw new SvcError('usage', `the TLS certificate and key do not make a pair: ${(e as Error).message}; the old ones stay`);
          }
          if (!tlsChanged) applied.push('tls (files read again)');
          relay.setTls(tls);
          mx.setTls(tls);
          config.tlsCert = next.tlsCert;
          config.tlsKey = next.tlsKey;
        }
        if (applied.includes('logLevel')) config.logLevel = next.logLevel;
        return { applied, restart: changed.filter((k) => !LIVE.has(k)) };
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * A listener that cannot listen says which one, where, why, and the flag (and variable) that
 * moves it, rather than `listen EADDRINUSE: address already in use`.
 */
async function listening<T>(name: string, flag: string, env: string, host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'EADDRINUSE'
        ? 'another program (or another svc serve) is listening there'
        : code === 'EACCES'
          ? 'ports below 1024 need privileges (CAP_NET_BIND_SERVICE)'
          : code === 'EADDRNOTAVAIL'
            ? 'that address is not one of this machine’s'
            : null;
    if (!why) throw e;
    throw new SvcError(
      'conflict',
      `the ${name} listener cannot listen on ${host}:${port} (${code}): ${why}; choose another with ${flag} or ${env}`,
    );
  }
}
