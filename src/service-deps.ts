// What every part of the service is built on beyond the injected Deps: the daemon's faults, the
// operational event log and the bus, made when the caller gave none. Every part of the service
// (src/service.ts) is built on these, whether the daemon builds them all or a command one.
import type { Deps } from './deps.js';
import type { DnsClient } from './domains/dns.js';
import { Faults } from './faults.js';
import { EventLog } from './event-log.js';
import { Bus } from './bus.js';

/**
 * `hear`: the bus also delivers what other processes on the store announce (the daemon, live
 * views); otherwise it only tells them (a one-shot command's sends wake the daemon's workers).
 */
export function serviceDeps<D extends Deps>(given: D, opts: { hear?: boolean } = {}) {
  const deps = {
    ...given,
    faults: given.faults ?? new Faults(given.log, given.clock),
    events: given.events ?? new EventLog(given.log),
    bus: given.bus ?? new Bus(),
  };
  if (given.store.events && !given.bus) deps.bus.connect(given.store.events, { hear: opts.hear ?? false });
  return deps;
}

/** `dns`: the resolver domain checks use (tests give one of their own). */
export type ServiceDeps = ReturnType<typeof serviceDeps<Deps & { dns?: DnsClient }>>;
