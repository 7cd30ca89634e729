// Postgres: the suppression list.
import type { Suppression } from '../../model/suppression.js';
import type { SuppressionStore } from '../port/suppressions.js';
import type { PgDb } from './db.js';

interface SuppressionRow {
  workspace_id: string;
  address: string;
  reason: Suppression['reason'];
  detail: string | null;
  created_at: Date;
  message_id: string | null;
  class: string | null;
}
const toSuppression = (r: SuppressionRow): Suppression => ({
  workspace_id: r.workspace_id,
  address: r.address,
  reason: r.reason,
  detail: r.detail,
  created_at: r.created_at.toISOString(),
  ...(r.message_id ? { message_id: r.message_id } : {}),
  ...(r.class ? { class: r.class } : {}),
});

export function pgSuppressions(db: PgDb): SuppressionStore {
  return {
    list: async (workspaceId) =>
      (await db.rows<SuppressionRow>(`SELECT * FROM suppressions WHERE workspace_id = $1 ORDER BY created_at, address`, [workspaceId])).map(
        toSuppression,
      ),
    add: async (s) => {
      const [r] = await db.rows<SuppressionRow>(
        `WITH ins AS (INSERT INTO suppressions (workspace_id, address, reason, detail, created_at, message_id, class) VALUES ($1, $2, $3, $4, $5, $6, $7)
                       ON CONFLICT DO NOTHING RETURNING *)
         SELECT * FROM ins UNION ALL SELECT * FROM suppressions WHERE workspace_id = $1 AND address = $2 LIMIT 1`,
        [s.workspace_id, s.address, s.reason, s.detail, s.created_at, s.message_id ?? null, s.class ?? null],
      );
      return toSuppression(r!);
    },
    remove: async (workspaceId, address) =>
      (await db.rows(`DELETE FROM suppressions WHERE workspace_id = $1 AND address = $2 RETURNING address`, [workspaceId, address]))
        .length > 0,
    find: async (workspaceId, addresses) =>
      addresses.length
        ? (
            await db.rows<SuppressionRow>(
              `SELECT * FROM suppressions WHERE workspace_id = $1 AND address = ANY($2)`,
              [workspaceId, addresses],
              'suppression_find',
            )
          ).map(toSuppression)
        : [],
  };
}
