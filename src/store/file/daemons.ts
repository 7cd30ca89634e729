// File store: the daemon's report is kept in memory. One daemon owns a file store and admin
// commands reach it over its socket, so they read the report from the daemon itself; nothing of it
// outlives the process (a store no daemon owns has no report).
import { DAEMON_STALE_MS, type DaemonStatus } from '../../model/daemon-status.js';
import type { DaemonStore } from '../port/daemons.js';

export function fileDaemons(): DaemonStore {
  const reports = new Map<string, DaemonStatus>();
  return {
    beat: async (s) => void reports.set(s.id, structuredClone(s)),
    list: async (now) => {
      const since = Date.parse(now) - DAEMON_STALE_MS;
      return [...reports.values()]
        .filter((s) => Date.parse(s.updated_at) >= since)
        .sort((a, b) => (a.started_at < b.started_at ? -1 : 1))
        .map((s) => structuredClone(s));
    },
    gone: async (id) => void reports.delete(id),
  };
}
