// The running daemons' own reports (`svc status`), each replaced by its next.
import type { DaemonStatus } from '../../model/daemon-status.js';

export interface DaemonStore {
  /** Stores the daemon's report, replacing its last. */
  beat(status: DaemonStatus): Promise<void>;
  /** The reports of daemons heard from within DAEMON_STALE_MS of `now`, by start time. */
  list(now: string): Promise<DaemonStatus[]>;
  /** A daemon stopping says so: its report goes at once. */
  gone(id: string): Promise<void>;
}
