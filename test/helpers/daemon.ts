// The daemon in-process on port 0 (DESIGN.md "Build, then listen"), on a fresh file store unless
// a store is given.
import { systemClock, systemRandom, type Clock } from '../../src/clock.js';
import { loadConfig, type StoreLocation } from '../../src/config.js';
import { lineLog } from '../../src/log.js';
import { startDaemon, type Daemon } from '../../daemon/serve.js';
import { tmpDir } from './tmp.js';
import { TLS_FIXTURE } from './tls.js';
import { disconnectClients } from './smtp-client.js';

export interface TestDaemon {
  daemon: Daemon;
  api: string;
  logs: string[];
  /** Creates a workspace and a key with these scopes; returns the key. */
  key(scopes?: string, workspace?: string): Promise<string>;
}

export async function startTestDaemon(
  t: { after(fn: () => unknown): void },
  opts: {
    store?: StoreLocation;
    clock?: Clock;
    env?: Record<string, string>;
    deliver?: boolean;
    schedule?: boolean;
    /** The daemon makes (or finds in its store) its own certificate, as `svc serve` without --tls-cert. */
    selfSigned?: boolean;
  } = {},
): Promise<TestDaemon> {
  const store = opts.store ?? { kind: 'file' as const, dir: await tmpDir(t) };
  // The rate limit is exercised by its own tests; elsewhere it is out of the way. One compose thread
  // (the pool's own tests size it): each thread loads the compose code, a third of a second of CPU.
  const env = { SVC_RATE_LIMIT: '1000000', SVC_COMPOSE_THREADS: '1', ...(opts.selfSigned ? {} : TLS_FIXTURE), ...opts.env };
  const config = { ...loadConfig({ apiPort: '0', relayPort: '0', mxPort: '0' }, env), store };
  const logs: string[] = [];
  const daemon = await startDaemon({
    config,
    clock: opts.clock ?? systemClock,
    random: systemRandom,
    log: lineLog((l) => logs.push(l)),
    ready: () => {},
    baseUrlDerived: true,
    deliver: opts.deliver ?? true,
    // Tests that hand off by hand send webhooks by hand too.
    dispatch: opts.deliver ?? true,
    // Tests that move the clock run the sequence scheduler by hand.
    schedule: opts.schedule ?? true,
  });
  t.after(() => {
    disconnectClients();
    return daemon.close();
  });
  const { service } = daemon;
  return {
    daemon,
    api: daemon.url('api'),
    logs,
    async key(scopes = 'read,send', workspace = 'acme') {
      const ws = (await service.store.workspaces.getByName(workspace)) ?? (await service.workspaces.create(workspace));
      return (await service.keys.create(ws, { scopes })).key;
    },
  };
}
