// The embedded store's webhook endpoints: kept in svc.json with the other workspace settings, with
// where each one's run of failures began in svc.db (a failed delivery does not rewrite the
// document). Removing one drops its pending jobs.
import type { WebhookEndpoint } from '../../model/webhook.js';
import type { DocFile } from '../file/doc.js';
import type { WebhookEndpointStore } from '../port/webhooks.js';
import type { SqlDb } from '../sql/db.js';
import { dropEndpointJobs, type EndpointSource } from '../sql/webhooks.js';

const copy = (e: WebhookEndpoint): WebhookEndpoint => ({
  ...e,
  events: [...e.events],
  previous_secret: e.previous_secret ?? null,
  previous_secret_until: e.previous_secret_until ?? null,
});

export function docEndpoints(doc: DocFile, db: SqlDb): { endpoints: WebhookEndpointStore; source: EndpointSource } {
  const list = () => doc.data.webhook_endpoints;
  const find = (workspaceId: string, id: string) => list().find((e) => e.id === id && e.workspace_id === workspaceId);
  const failing = async (ids: string[]): Promise<Map<string, string>> =>
    ids.length
      ? new Map(
          (
            await db.run((q) =>
              q.selectFrom('endpoint_failures').select(['endpoint_id', 'since']).where('endpoint_id', 'in', ids).execute(),
            )
          ).map((r) => [r.endpoint_id, r.since]),
        )
      : new Map();
  const views = async (eps: WebhookEndpoint[]): Promise<WebhookEndpoint[]> => {
    const since = await failing(eps.map((e) => e.id));
    return eps.map((e) => ({ ...copy(e), failing_since: since.get(e.id) ?? null }));
  };
  const view = async (e: WebhookEndpoint) => (await views([e]))[0]!;

  const endpoints: WebhookEndpointStore = {
    create: async (e) => {
      doc.open();
      const rec = { ...copy(e), failing_since: null };
      list().push(rec);
      await doc.commit();
      return view(rec);
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return views(list().filter((e) => e.workspace_id === workspaceId));
    },
    get: async (workspaceId, id) => {
      doc.open();
      const e = find(workspaceId, id);
      return e ? view(e) : null;
    },
    update: async (workspaceId, id, patch) => {
      doc.open();
      const e = find(workspaceId, id);
      if (!e) return null;
      Object.assign(e, patch);
      await doc.commit();
      return view(e);
    },
    remove: async (workspaceId, id) => {
      doc.open();
      if (!find(workspaceId, id)) return false;
      doc.data.webhook_endpoints = list().filter((e) => e.id !== id);
      await doc.commit();
      await db.tx(async (q) => {
        await dropEndpointJobs(q, id);
        await q.deleteFrom('endpoint_failures').where('endpoint_id', '=', id).execute();
      });
      return true;
    },
  };

  const source: EndpointSource = {
    enabled: async (q, workspaceIds) => {
      doc.open();
      const wanted = workspaceIds && new Set(workspaceIds);
      const eps = list().filter((e) => e.status === 'enabled' && (!wanted || wanted.has(e.workspace_id)));
      const ids = eps.map((e) => e.id);
      const since = new Map(
        ids.length
          ? (await q.selectFrom('endpoint_failures').select(['endpoint_id', 'since']).where('endpoint_id', 'in', ids).execute()).map(
              (r) => [r.endpoint_id, r.since],
            )
          : [],
      );
      return eps.map((e) => ({ ...copy(e), failing_since: since.get(e.id) ?? null }));
    },
    afterAttempts: async (q, runs, disabled) => {
      for (const r of runs) {
        if (r.ok) await q.deleteFrom('endpoint_failures').where('endpoint_id', '=', r.endpoint_id).execute();
        else
          await q
            .insertInto('endpoint_failures')
            .values({ endpoint_id: r.endpoint_id, since: r.since })
            .onConflict((c) => c.column('endpoint_id').doNothing())
            .execute();
      }
      // The document is written as the attempts' transaction commits (a crash in between leaves the
      // endpoint enabled: its next failure disables it again).
      let changed = false;
      for (const d of disabled) {
        const e = list().find((x) => x.id === d.endpoint_id);
        if (e && e.status === 'enabled') {
          Object.assign(e, { status: 'disabled', disabled_reason: d.reason });
          changed = true;
        }
      }
      if (changed) await doc.commit();
    },
  };

  return { endpoints, source };
}
