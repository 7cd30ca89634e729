// Postgres: webhook endpoints (the control plane's, as svc.json holds them in the embedded store),
// and what the shared webhook jobs (sql/webhooks.ts) read and change of them.
import { sql } from '#kysely';
import type { WebhookEndpoint } from '../../model/webhook.js';
import type { WebhookEndpointStore } from '../port/webhooks.js';
import type { EndpointSource } from '../sql/webhooks.js';
import { iso, type PgDb, type Row } from './db.js';

const ENDPOINT_COLS =
  'id, workspace_id, url, events, secret, status, disabled_reason, failing_since, created_at, secret_rotated_at, previous_secret, previous_secret_until';

type EndpointRow = Row<WebhookEndpoint, 'failing_since' | 'created_at' | 'secret_rotated_at' | 'previous_secret_until'>;

const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  workspace_id: r.workspace_id,
  url: r.url,
  events: r.events,
  secret: r.secret,
  status: r.status,
  disabled_reason: r.disabled_reason,
  failing_since: iso(r.failing_since),
  created_at: r.created_at.toISOString(),
  secret_rotated_at: iso(r.secret_rotated_at),
  previous_secret: r.previous_secret ?? null,
  previous_secret_until: iso(r.previous_secret_until ?? null),
});

export function pgEndpoints(db: PgDb): { endpoints: WebhookEndpointStore; source: EndpointSource } {
  const endpoints: WebhookEndpointStore = {
    create: async (e) => {
      const [r] = await db.rows<EndpointRow>(
        `INSERT INTO webhook_endpoints (${ENDPOINT_COLS}) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, $10, $11) RETURNING ${ENDPOINT_COLS}`,
        [
          e.id,
          e.workspace_id,
          e.url,
          e.events,
          e.secret,
          e.status,
          e.disabled_reason,
          e.created_at,
          e.secret_rotated_at,
          e.previous_secret,
          e.previous_secret_until,
        ],
      );
      return toEndpoint(r!);
    },
    listByWorkspace: async (workspaceId) =>
      (
        await db.rows<EndpointRow>(`SELECT ${ENDPOINT_COLS} FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])
      ).map(toEndpoint),
    get: async (workspaceId, id) => {
      const [r] = await db.rows<EndpointRow>(`SELECT ${ENDPOINT_COLS} FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`, [
        workspaceId,
        id,
      ]);
      return r ? toEndpoint(r) : null;
    },
    update: async (workspaceId, id, patch) => {
      const [r] = await db.rows<EndpointRow>(
        `UPDATE webhook_endpoints SET
            status = COALESCE($3, status),
            disabled_reason = CASE WHEN $3::text = 'enabled' THEN NULL WHEN $4::text IS NOT NULL THEN $4 ELSE disabled_reason END,
            secret = COALESCE($5, secret),
            secret_rotated_at = COALESCE($6, secret_rotated_at),
            previous_secret = CASE WHEN $7::boolean THEN $8 ELSE previous_secret END,
            previous_secret_until = CASE WHEN $7::boolean THEN $9::timestamptz ELSE previous_secret_until END
          WHERE workspace_id = $1 AND id = $2 RETURNING ${ENDPOINT_COLS}`,
        [
          workspaceId,
          id,
          patch.status ?? null,
          patch.disabled_reason ?? null,
          patch.secret ?? null,
          patch.secret_rotated_at ?? null,
          // A rotation sets the previous secret, or clears it (no grace): both are written.
          'previous_secret' in patch,
          patch.previous_secret ?? null,
          patch.previous_secret_until ?? null,
        ],
      );
      return r ? toEndpoint(r) : null;
    },
    remove: async (workspaceId, id) => {
      const r = await db.rows(`DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 RETURNING id`, [workspaceId, id]);
      return r.length > 0;
    },
  };

  // The shared webhook jobs' view of these endpoints, in their transaction.
  const source: EndpointSource = {
    enabled: async (q, workspaceIds) => {
      const { rows } = await sql<EndpointRow>`SELECT ${sql.raw(ENDPOINT_COLS)} FROM webhook_endpoints
         WHERE status = 'enabled' AND (${workspaceIds === null} OR workspace_id = ANY(${workspaceIds ?? []}::text[])) ORDER BY seq`.execute(
        q,
      );
      return rows.map(toEndpoint);
    },
    // Failure runs are written only when they change, so a healthy endpoint's row is not touched per delivery.
    afterAttempts: async (q, runs, disabled) => {
      if (!runs.length && !disabled.length) return;
      await sql`UPDATE webhook_endpoints e SET failing_since = CASE WHEN u.ok THEN NULL ELSE u.since END,
                  status = CASE WHEN d.reason IS NOT NULL THEN 'disabled' ELSE e.status END,
                  disabled_reason = CASE WHEN d.reason IS NOT NULL AND e.status = 'enabled' THEN d.reason ELSE e.disabled_reason END
             FROM jsonb_to_recordset(${JSON.stringify(runs)}) AS u(endpoint_id text, ok boolean, since timestamptz)
             LEFT JOIN jsonb_to_recordset(${JSON.stringify(disabled)}) AS d(endpoint_id text, reason text) ON d.endpoint_id = u.endpoint_id
            WHERE e.id = u.endpoint_id AND (d.reason IS NOT NULL OR (u.ok AND e.failing_since IS NOT NULL) OR (NOT u.ok AND e.failing_since IS NULL))`.execute(
        q,
      );
    },
  };

  return { endpoints, source };
}
