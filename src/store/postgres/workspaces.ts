// Postgres: workspaces. A plan change tells every daemon (NOTIFY) to drop its cached copies. A
// deletion marks the row (keys and memberships go at once), then purge() removes the workspace's
// rows table by table in batches, and the row last.
import { SvcError } from '../../errors.js';
import type { Plan, Workspace, WorkspaceDeletion } from '../../model/workspace.js';
import type { WorkspaceStore } from '../port/workspaces.js';
import type { PgLookups } from './db.js';
import { INVALIDATE_CHANNEL } from './lookup-cache.js';

interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: Date;
}

const WS_COLS = 'id, name, plan, created_at';
const LIVE = 'deleted_at IS NULL';

/**
 * Removed with the mark, in the same transaction: nobody can use the workspace any more (with the
 * accounts of its people who belong nowhere else), and its queued mail and webhook deliveries are
 * not handed off (as many rows as its queues hold).
 */
export const ENDED_AT_ONCE = ['api_keys', 'memberships', 'outbound_jobs', 'webhook_jobs'] as const;
/**
 * What purge() removes, a batch at a time, in this order (a row before what it points to). Each is
 * found by workspace_id; a test checks that every table with that column is named here, in
 * ENDED_AT_ONCE or in WITH_THEIR_PARENT.
 */
export const PURGED = [
  'outbox_events',
  'webhook_attempts',
  'idempotency_keys',
  'send_usage',
  'inbox_thread_state',
  'inbox_items',
  'inbox_usage',
  'enrolments',
  'sequences',
  'campaigns',
  'subscribers',
  'lists',
  'messages',
  'send_contents',
  'suppressions',
  'webhook_endpoints',
  'addresses',
  'domains',
] as const;
/** Removed by their foreign key's ON DELETE CASCADE with a row of PURGED (a few per parent row). */
export const WITH_THEIR_PARENT = ['message_events', 'delivery_attempts', 'sequence_steps'] as const;

interface DeletionRow extends WorkspaceRow {
  deleted_name: string;
  deleted_at: Date;
  deletion_reason: string;
}
const toWorkspace = (r: WorkspaceRow): Workspace => ({ id: r.id, name: r.name, plan: r.plan, created_at: r.created_at.toISOString() });

export function pgWorkspaces(db: PgLookups): WorkspaceStore {
  return {
    create: async (ws) => {
      try {
        const [r] = await db.rows<WorkspaceRow>(`INSERT INTO workspaces (${WS_COLS}) VALUES ($1, $2, $3, $4) RETURNING ${WS_COLS}`, [
          ws.id,
          ws.name,
          ws.plan,
          ws.created_at,
        ]);
        return toWorkspace(r!);
      } catch (e) {
        if (e instanceof SvcError && e.kind === 'conflict') throw new SvcError('conflict', `workspace '${ws.name}' already exists`);
        throw e;
      }
    },
    list: async () => (await db.rows<WorkspaceRow>(`SELECT ${WS_COLS} FROM workspaces WHERE ${LIVE} ORDER BY seq`, [])).map(toWorkspace),
    getByName: async (name) => {
      const [r] = await db.rows<WorkspaceRow>(`SELECT ${WS_COLS} FROM workspaces WHERE name = $1 AND ${LIVE}`, [name], 'ws_by_name');
      return r ? toWorkspace(r) : null;
    },
    setPlan: (id, plan) =>
      // The NOTIFY (sent at commit) drops every other daemon's cached copies of the workspace; this
      // daemon's go when the write returns (lookupWrite), not when its own NOTIFY comes back.
      db.lookupWrite(async () => {
        const [r] = await db.rows<WorkspaceRow>(
          `WITH u AS (UPDATE workspaces SET plan = $2 WHERE id = $1 AND ${LIVE} RETURNING ${WS_COLS})
           SELECT u.*, pg_notify('${INVALIDATE_CHANNEL}', 'ws:' || u.id) FROM u`,
          [id, plan],
        );
        return r ? toWorkspace(r) : null;
      }),
    trialWarnings: async (id) => {
      const [r] = await db.rows<{ trial_warnings: number; trial_warned_at: Date | null }>(
        `SELECT trial_warnings, trial_warned_at FROM workspaces WHERE id = $1`,
        [id],
        'ws_trial_warnings',
      );
      return { sent: r?.trial_warnings ?? 0, last_at: r?.trial_warned_at?.toISOString() ?? null };
    },
    recordTrialWarning: async (id, n, at) =>
      (
        await db.rows(
          `UPDATE workspaces SET trial_warnings = $2, trial_warned_at = $3 WHERE id = $1 AND ${LIVE} AND trial_warnings = $2 - 1 RETURNING id`,
          [id, n, at],
          'ws_trial_warned',
        )
      ).length === 1,
    markDeleted: (id, at, reason) =>
      // Its keys stop in this daemon when the call returns, not when its own NOTIFY comes back.
      db.lookupWrite(() =>
        db.tx(async (c) => {
          // The name is freed (a deleted row keeps it in deleted_name): names are unique among rows.
          const marked = await c.query(
            `UPDATE workspaces SET deleted_at = $2, deletion_reason = $3, deleted_name = name, name = '~' || id WHERE id = $1 AND ${LIVE} RETURNING id`,
            [id, at, reason],
          );
          if (!marked.rowCount) return false;
          // Every daemon drops its cached keys and look-ups of the workspace at commit.
          const keys = await c.query<{ hash: string }>(`DELETE FROM api_keys WHERE workspace_id = $1 RETURNING hash`, [id]);
          await c.query(`DELETE FROM outbound_jobs WHERE workspace_id = $1`, [id]);
          await c.query(`DELETE FROM webhook_jobs WHERE workspace_id = $1`, [id]);
          const people = await c.query<{ account_id: string }>(`DELETE FROM memberships WHERE workspace_id = $1 RETURNING account_id`, [
            id,
          ]);
          // Its people's accounts go too (their sessions and links with them), but for those who are members elsewhere.
          await c.query(
            `DELETE FROM accounts a WHERE a.id = ANY ($1) AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.account_id = a.id)`,
            [people.rows.map((r) => r.account_id)],
          );
          for (const k of keys.rows) await c.query(`SELECT pg_notify('${INVALIDATE_CHANNEL}', $1)`, [`key:${k.hash}`]);
          await c.query(`SELECT pg_notify('${INVALIDATE_CHANNEL}', $1), pg_notify('${INVALIDATE_CHANNEL}', 'senders')`, [`ws:${id}`]);
          return true;
        }),
      ),
    deletions: async () =>
      (
        await db.rows<DeletionRow>(
          `SELECT ${WS_COLS}, deleted_name, deleted_at, deletion_reason FROM workspaces WHERE deleted_at IS NOT NULL ORDER BY deleted_at, seq`,
          [],
        )
      ).map((r) => ({
        ...toWorkspace(r),
        name: r.deleted_name,
        deleted_at: r.deleted_at.toISOString(),
        reason: r.deletion_reason,
      })),
    claimDeletion: async (id, owner, at, staleMs) =>
      (
        await db.rows(
          `UPDATE workspaces SET deletion_owner = $2, deletion_claimed_at = $3
            WHERE id = $1 AND deleted_at IS NOT NULL
              AND (deletion_owner IS NULL OR deletion_owner = $2 OR deletion_claimed_at < $3::timestamptz - make_interval(secs => $4 / 1000.0))
            RETURNING id`,
          [id, owner, at, staleMs],
        )
      ).length === 1,
    purge: async (id, limit) => {
      let removed = 0;
      // What the mark removed, again: a write in flight as it was made.
      for (const table of [...ENDED_AT_ONCE, ...PURGED]) {
        const want = limit - removed;
        // By ctid, so a batch is bounded whatever the table's key.
        const n = await db.rows(
          `DELETE FROM ${table} WHERE ctid = ANY (ARRAY (SELECT ctid FROM ${table} WHERE workspace_id = $1 LIMIT $2)) RETURNING 1`,
          [id, want],
        );
        removed += n.length;
        if (n.length === want) return { removed, done: false };
      }
      if (removed) return { removed, done: false };
      // Nothing left: the row goes, unless something was written meanwhile (a send in flight as the
      // mark was made); the row's lock keeps new writes that check it out until the commit.
      return db.tx(async (c) => {
        if (!(await c.query(`SELECT 1 FROM workspaces WHERE id = $1 AND deleted_at IS NOT NULL FOR UPDATE`, [id])).rowCount)
          return { removed: 0, done: false };
        for (const table of [...PURGED, ...ENDED_AT_ONCE])
          if ((await c.query(`SELECT 1 FROM ${table} WHERE workspace_id = $1 LIMIT 1`, [id])).rowCount) return { removed: 0, done: false };
        await c.query(`DELETE FROM workspaces WHERE id = $1`, [id]);
        return { removed: 1, done: true };
      });
    },
  };
}
