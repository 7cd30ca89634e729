// A deleted workspace's rows on the shared tables. The embedded store removes them at its purge
// (its document holds the workspace itself); the Postgres backend purges in bounded batches
// (postgres/workspaces.ts) and will take this list as its tables move here.
import type { SqlDb } from './db.js';

/** The shared tables that hold a workspace's rows, a row before what it points to. */
export const WORKSPACE_TABLES = [
  'enrolments',
  'sequence_steps',
  'sequences',
  'campaigns',
  'subscribers',
  'inbox_thread_state',
  'inbox_items',
  'inbox_usage',
  'message_events',
  'outbound_jobs',
  'webhook_jobs',
  'webhook_attempts',
  'outbox_events',
  'delivery_attempts',
  'messages',
  'send_contents',
  'send_usage',
  'idempotency_keys',
  'suppressions',
] as const;

/** Removes every row of the workspace from the shared tables; how many. */
export function purgeWorkspace(db: SqlDb, workspaceId: string): Promise<number> {
  return db.tx(async (q) => {
    let n = 0;
    for (const table of WORKSPACE_TABLES) {
      const r = await q.deleteFrom(table).where('workspace_id', '=', workspaceId).executeTakeFirst();
      n += Number(r.numDeletedRows);
    }
    return n;
  });
}

/** What ends at once when a workspace is deleted: its queued mail and webhook deliveries are not handed off. */
export function endWorkspace(db: SqlDb, workspaceId: string): Promise<void> {
  return db.tx(async (q) => {
    await q.deleteFrom('outbound_jobs').where('workspace_id', '=', workspaceId).execute();
    await q.deleteFrom('webhook_jobs').where('workspace_id', '=', workspaceId).execute();
  });
}
