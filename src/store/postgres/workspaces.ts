// Postgres: workspaces. A plan change tells every daemon (NOTIFY) to drop its cached copies.
import { SvcError } from '../../errors.js';
import type { Plan, Workspace } from '../../model/workspace.js';
import type { WorkspaceStore } from '../port/workspaces.js';
import type { PgDb } from './db.js';
import { INVALIDATE_CHANNEL } from './lookup-cache.js';

interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: Date;
}

const WS_COLS = 'id, name, plan, created_at';
const toWorkspace = (r: WorkspaceRow): Workspace => ({ id: r.id, name: r.name, plan: r.plan, created_at: r.created_at.toISOString() });

export function pgWorkspaces(db: PgDb): WorkspaceStore {
  return {
    create: async (ws) => {
      try {
        const [r] = await db.rows<WorkspaceRow>(`INSERT INTO workspaces (${WS_COLS}) VALUES ($1, $2, $3, $4) RETURNING ${WS_COLS}`, [ws.id, ws.name, ws.plan, ws.created_at]);
        return toWorkspace(r!);
      } catch (e) {
        if (e instanceof SvcError && e.kind === 'conflict') throw new SvcError('conflict', `workspace '${ws.name}' already exists`);
        throw e;
      }
    },
    list: async () => (await db.rows<WorkspaceRow>(`SELECT ${WS_COLS} FROM workspaces ORDER BY seq`, [])).map(toWorkspace),
    getByName: async (name) => {
      const [r] = await db.rows<WorkspaceRow>(`SELECT ${WS_COLS} FROM workspaces WHERE name = $1`, [name], 'ws_by_name');
      return r ? toWorkspace(r) : null;
    },
    setPlan: async (id, plan) => {
      // The NOTIFY (sent at commit) drops every daemon's cached copies of the workspace.
      const [r] = await db.rows<WorkspaceRow>(
        `WITH u AS (UPDATE workspaces SET plan = $2 WHERE id = $1 RETURNING ${WS_COLS})
         SELECT u.*, pg_notify('${INVALIDATE_CHANNEL}', 'ws:' || u.id) FROM u`,
        [id, plan],
      );
      return r ? toWorkspace(r) : null;
    },
    trialWarnings: async (id) => {
      const [r] = await db.rows<{ trial_warnings: number; trial_warned_at: Date | null }>(`SELECT trial_warnings, trial_warned_at FROM workspaces WHERE id = $1`, [id], 'ws_trial_warnings');
      return { sent: r?.trial_warnings ?? 0, last_at: r?.trial_warned_at?.toISOString() ?? null };
    },
    recordTrialWarning: async (id, n, at) =>
      (await db.rows(`UPDATE workspaces SET trial_warnings = $2, trial_warned_at = $3 WHERE id = $1 AND trial_warnings = $2 - 1 RETURNING id`, [id, n, at], 'ws_trial_warned')).length === 1,
  };

}
