// Postgres: a row per running daemon with its report (`svc status` reads every daemon's), replaced
// every few seconds; a stopping daemon deletes its row, a crashed one's ages out.
import { DAEMON_STALE_MS, type DaemonStatus } from '../../model/daemon-status.js';
import type { DaemonStore } from '../port/daemons.js';
import type { PgDb } from './db.js';

export function pgDaemons(db: PgDb): DaemonStore {
  return {
    beat: async (s) => {
      await db.rows(
        `INSERT INTO daemon_status (id, report, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET report = EXCLUDED.report, updated_at = EXCLUDED.updated_at`,
        [s.id, JSON.stringify(s), s.updated_at],
        'daemons_beat',
      );
      // Rows of daemons gone for a day are dropped as the others beat.
      await db.rows(`DELETE FROM daemon_status WHERE updated_at < $1::timestamptz - interval '1 day'`, [s.updated_at], 'daemons_sweep');
    },
    list: async (now) =>
      (
        await db.rows<{ report: DaemonStatus }>(
          `SELECT report FROM daemon_status WHERE updated_at >= $1 ORDER BY report->>'started_at', id`,
          [new Date(Date.parse(now) - DAEMON_STALE_MS).toISOString()],
          'daemons_list',
        )
      ).map((r) => r.report),
    gone: async (id) => void (await db.rows(`DELETE FROM daemon_status WHERE id = $1`, [id], 'daemons_gone')),
  };
}
