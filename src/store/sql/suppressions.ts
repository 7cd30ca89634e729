// The suppression list, on either SQL backend.
import type { Selectable } from '#kysely';
import type { Suppression } from '../../model/suppression.js';
import type { SuppressionStore } from '../port/suppressions.js';
import { iso, type SqlDb } from './db.js';
import type { SuppressionsTable } from './tables.js';

const toSuppression = (r: Selectable<SuppressionsTable>): Suppression => ({
  workspace_id: r.workspace_id,
  address: r.address,
  reason: r.reason as Suppression['reason'],
  detail: r.detail,
  created_at: iso(r.created_at),
  ...(r.message_id ? { message_id: r.message_id } : {}),
  ...(r.class ? { class: r.class } : {}),
});

export function sqlSuppressions(db: SqlDb): SuppressionStore {
  return {
    list: async (workspaceId) =>
      (
        await db.run((q) =>
          q
            .selectFrom('suppressions')
            .selectAll()
            .where('workspace_id', '=', workspaceId)
            .orderBy('created_at')
            .orderBy('address')
            .execute(),
        )
      ).map(toSuppression),
    // The first entry stays: a later bounce of a suppressed address changes nothing.
    add: (s) =>
      db.run(async (q) => {
        const row = { ...s, message_id: s.message_id ?? null, class: s.class ?? null };
        const added = await q
          .insertInto('suppressions')
          .values(row)
          .onConflict((c) => c.doNothing())
          .returningAll()
          .executeTakeFirst();
        const kept =
          added ??
          (await q
            .selectFrom('suppressions')
            .selectAll()
            .where('workspace_id', '=', s.workspace_id)
            .where('address', '=', s.address)
            .executeTakeFirst());
        return toSuppression(kept ?? row);
      }),
    remove: async (workspaceId, address) =>
      (
        await db.run((q) =>
          q
            .deleteFrom('suppressions')
            .where('workspace_id', '=', workspaceId)
            .where('address', '=', address)
            .returning('address')
            .execute(),
        )
      ).length > 0,
    find: async (workspaceId, addresses) =>
      addresses.length
        ? (
            await db.run((q) =>
              q.selectFrom('suppressions').selectAll().where('workspace_id', '=', workspaceId).where('address', 'in', addresses).execute(),
            )
          ).map(toSuppression)
        : [],
  };
}
