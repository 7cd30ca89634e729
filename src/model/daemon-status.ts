// What a running daemon says of itself (`svc status`): refreshed every few seconds into the store
// (Postgres: a row per daemon; the file store: the daemon's memory, read over its admin socket).

/** Recipients by what happened to them, over a window. */
export interface Rates {
  accepted: number;
  sent: number;
  deferred: number;
  bounced: number;
}

export interface DaemonStatus {
  /** host:pid:random, one per running daemon. */
  id: string;
  host: string;
  pid: number;
  version: string;
  started_at: string;
  updated_at: string;
  listeners: Array<{ name: string; url: string; connections: number | null }>;
  /** Over the last minute and the last hour. */
  rates: { minute: Rates; hour: Rates };
  /** Faults open now (the ones /healthz shows). */
  faults: Array<{ kind: string; detail: string; since: string; count: number }>;
  /** Periodic work: its name and cron expression. */
  ticks: Array<{ name: string; cron: string }>;
}

/** A daemon that said nothing for this long is taken to be gone. */
export const DAEMON_STALE_MS = 60_000;
