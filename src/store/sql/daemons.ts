// A row per running daemon with its report (`svc status` reads every daemon's), replaced every few
// seconds; a stopping daemon deletes its row, a crashed one's ages out.
import { DAEMON_STALE_MS, type DaemonStatus } from '../../model/daemon-status.js';
import type { DaemonStore } from '../port/daemons.js';
import { fromJson, type SqlDb } from './db.js';

const DAY_MS = 86_400_000;
const before = (at: string, ms: number) => new Date(Date.parse(at) - ms).toISOString();

export function sqlDaemons(db: SqlDb): DaemonStore {
  return {
    beat: (s) =>
      db.run(async (q) => {
        const row = { id: s.id, report: JSON.stringify(s), updated_at: s.updated_at };
        await q
          .insertInto('daemon_status')
          .values(row)
          .onConflict((c) => c.column('id').doUpdateSet({ report: row.report, updated_at: row.updated_at }))
          .execute();
        // Rows of daemons gone for a day are dropped as the others beat.
        await q.deleteFrom('daemon_status').where('updated_at', '<', before(s.updated_at, DAY_MS)).execute();
      }),
    list: async (now) => {
      const rows = await db.run((q) =>
        q.selectFrom('daemon_status').select('report').where('updated_at', '>=', before(now, DAEMON_STALE_MS)).execute(),
      );
      return rows
        .map((r) => fromJson<DaemonStatus>(r.report))
        .sort((a, b) => (a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },
    gone: (id) => db.run(async (q) => void (await q.deleteFrom('daemon_status').where('id', '=', id).execute())),
  };
}
