// What every part of the service is built from (DESIGN.md "Dependencies passed in").
import type { Clock, Random } from './clock.js';
import type { Config } from './config.js';
import type { Log } from './log.js';
import type { Store, StoreGroups, StoreSlice } from './store/types.js';
import type { Faults } from './faults.js';
import type { EventLog } from './event-log.js';
import type { Bus } from './bus.js';

export interface Deps {
  store: Store;
  clock: Clock;
  random: Random;
  config: Config;
  log: Log;
  /** The daemon's own faults, logged without flooding and shown by /healthz (made by createService when absent). */
  faults?: Faults;
  /** Operational events, one structured line each, rate-limited (made by createService when absent). */
  events?: EventLog;
  /** Where arriving work is announced (the daemon's workers subscribe); made by createService when absent. */
  bus?: Bus;
}

/** Deps with only the store groups a service uses (it is handed the whole store; it may touch these). */
export type DepsOf<G extends keyof StoreGroups> = Omit<Deps, 'store'> & { store: StoreSlice<G> };
