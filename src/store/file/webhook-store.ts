// The file store's webhook groups: endpoints are small and live in svc.json with the other
// workspace settings; jobs and the delivery log are journal lines beside the mail (webhook-state.ts).
import { randomUUID } from 'node:crypto';
import { endpointWants } from '../../webhooks/events.js';
import type { OutboxEvent, WebhookEndpoint, WebhookEndpointStore, WebhookJob, WebhookStore } from '../types.js';
import type { FileMailStore } from './mail-store.js';

export interface EndpointDoc {
  /** The live array in svc.json. */
  all(): WebhookEndpoint[];
  replace(list: WebhookEndpoint[]): void;
  /** Writes svc.json; resolves once it is on disk. */
  commit(): Promise<void>;
  open(): void;
}

const copyEndpoint = (e: WebhookEndpoint): WebhookEndpoint => ({ ...e, events: [...e.events] });

export function fileWebhookStores(doc: EndpointDoc, mail: FileMailStore): { endpoints: WebhookEndpointStore; webhooks: WebhookStore } {
  // failing_since is derived from the delivery log, so a failure never rewrites svc.json.
  const view = (e: WebhookEndpoint): WebhookEndpoint => ({ ...copyEndpoint(e), failing_since: mail.webhooks.failingSince(e.id) });
  const find = (workspaceId: string, id: string) => doc.all().find((e) => e.id === id && e.workspace_id === workspaceId);
  const byId = (id: string) => doc.all().find((e) => e.id === id);

  const endpoints: WebhookEndpointStore = {
    create: async (e) => {
      doc.open();
      const rec = { ...copyEndpoint(e), failing_since: null };
      doc.all().push(rec);
      await doc.commit();
      return view(rec);
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return doc.all().filter((e) => e.workspace_id === workspaceId).map(view);
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
      doc.replace(doc.all().filter((e) => e.id !== id));
      await doc.commit();
      await mail.write({ t: 'wh_drop', at: new Date().toISOString(), endpoint_id: id });
      return true;
    },
  };

  const webhooks: WebhookStore = {
    fanOut: async (now, limit) => {
      doc.open();
      const events: OutboxEvent[] = await mail.outbox.pending(limit);
      if (!events.length) return { events: 0, jobs: 0 };
      const jobs: WebhookJob[] = [];
      for (const ev of events) {
        for (const ep of doc.all()) {
          if (ep.workspace_id !== ev.workspace_id || ep.status !== 'enabled' || ep.created_at > ev.created_at || !endpointWants(ep.events, ev.event)) continue;
          jobs.push({
            id: randomUUID(),
            workspace_id: ev.workspace_id,
            endpoint_id: ep.id,
            event_id: ev.id,
            event: ev.event,
            message_id: ev.message_id,
            payload: { ...ev.payload },
            state: 'pending',
            attempts: 0,
            next_attempt_at: now,
            created_at: now,
          });
        }
      }
      await mail.write({ t: 'wh_fanout', at: now, event_ids: events.map((e) => e.id), jobs });
      return { events: events.length, jobs: jobs.length };
    },
    claim: async (_owner, now, leaseMs, max) => {
      doc.open();
      const jobs = mail.webhooks.claim(now, leaseMs, max, (id) => byId(id)?.status === 'enabled');
      return jobs.map((job) => ({ job, endpoint: view(byId(job.endpoint_id)!) }));
    },
    record: async (records) => {
      doc.open();
      if (!records.length) return;
      // A job that is gone (its endpoint was removed meanwhile) still gets its attempt logged.
      const kept = records.map((r) => (r.job && !mail.webhooks.has(r.job.id) ? { attempt: r.attempt, ...(r.disable ? { disable: r.disable } : {}) } : r));
      const at = kept.reduce((m, r) => (r.attempt.attempted_at > m ? r.attempt.attempted_at : m), kept[0]!.attempt.attempted_at);
      await mail.write({ t: 'wh_record', at, records: kept.map((r) => ({ ...r, attempt: { ...r.attempt, payload: { ...r.attempt.payload } } })) });
      const disabled = records.filter((r) => r.disable);
      for (const r of disabled) {
        const e = byId(r.attempt.endpoint_id);
        if (e && e.status === 'enabled') Object.assign(e, { status: 'disabled', disabled_reason: r.disable! });
      }
      if (disabled.length) await doc.commit();
    },
    attempts: async (workspaceId, q) => mail.webhooks.attempts(workspaceId, q),
    attempt: async (workspaceId, id) => mail.webhooks.attempt(workspaceId, id),
    depth: async () => mail.webhooks.depth(),
    purge: async (before) => mail.webhooks.purge(before),
  };

  return { endpoints, webhooks };
}
