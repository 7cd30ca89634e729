// File store: the webhook aggregate. Endpoints are small and live in svc.json with the other
// workspace settings; jobs and the delivery log are lines of the mail journal (webhook-state.ts
// keeps them in memory), so an event's dispatch mark sits in the same journal as the event and
// both are dropped with their day, never one without the other.
import { randomUUID } from 'node:crypto';
import { endpointWants, type OutboxEvent } from '../../model/event.js';
import type { WebhookEndpoint, WebhookJob } from '../../model/webhook.js';
import type { OutboxStore } from '../port/messages.js';
import type { WebhookEndpointStore, WebhookStore } from '../port/webhooks.js';
import type { DocFile } from './doc.js';
import { dayOf, type Journal } from './journal.js';
import type { Line, Replay } from './replay.js';
import { all, each, shape } from './shapes.js';
import { WebhookState, type WebhookLine } from './webhook-state.js';

/** The line kinds of this aggregate in the mail journal. */
export function webhookLines(r: Replay): void {
  r.kind('wh_fanout', shape({ at: 's', event_ids: 'a', jobs: 'a' }));
  r.kind('wh_record', all(shape({ at: 's', records: 'a' }), each('records', shape({ attempt: 'o' }))));
  r.kind('wh_drop', shape({ at: 's', endpoint_id: 's' }));
}

// Endpoints written before the grace of a rotated secret existed have neither field: none.
const copyEndpoint = (e: WebhookEndpoint): WebhookEndpoint => ({
  ...e,
  events: [...e.events],
  previous_secret: e.previous_secret ?? null,
  previous_secret_until: e.previous_secret_until ?? null,
});

export function fileWebhooks(
  doc: DocFile,
  mail: Journal<Line>,
  replay: Replay,
  outbox: OutboxStore,
): { endpoints: WebhookEndpointStore; webhooks: WebhookStore } {
  const state = new WebhookState();
  webhookLines(replay);
  for (const t of ['wh_fanout', 'wh_record', 'wh_drop']) replay.on<WebhookLine>(t, (line) => state.apply(line));
  // A drop may be read before the fan-out of a job it drops (days follow each line's own clock).
  let dropped: Set<string> | null = new Set<string>();
  replay.on<WebhookLine & { t: 'wh_drop' }>('wh_drop', (line) => void dropped?.add(line.endpoint_id));
  replay.afterReplay(() => {
    for (const id of dropped ?? []) state.apply({ t: 'wh_drop', at: '', endpoint_id: id });
    dropped = null;
  });
  const write = async (line: WebhookLine): Promise<void> => {
    await mail.append(dayOf(line.at), [line]);
    replay.apply(line);
  };
  const endpointList = () => doc.data.webhook_endpoints;

  // failing_since is derived from the delivery log, so a failure never rewrites svc.json.
  const view = (e: WebhookEndpoint): WebhookEndpoint => ({ ...copyEndpoint(e), failing_since: state.failingSince(e.id) });
  const find = (workspaceId: string, id: string) => endpointList().find((e) => e.id === id && e.workspace_id === workspaceId);
  const byId = (id: string) => endpointList().find((e) => e.id === id);

  const endpoints: WebhookEndpointStore = {
    create: async (e) => {
      doc.open();
      const rec = { ...copyEndpoint(e), failing_since: null };
      endpointList().push(rec);
      await doc.commit();
      return view(rec);
    },
    listByWorkspace: async (workspaceId) => {
      doc.open();
      return endpointList()
        .filter((e) => e.workspace_id === workspaceId)
        .map(view);
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
      doc.data.webhook_endpoints = endpointList().filter((e) => e.id !== id);
      await doc.commit();
      await write({ t: 'wh_drop', at: new Date().toISOString(), endpoint_id: id });
      return true;
    },
  };

  const webhooks: WebhookStore = {
    fanOut: async (now, limit) => {
      doc.open();
      const events: OutboxEvent[] = await outbox.pending(limit);
      if (!events.length) return { events: 0, jobs: 0 };
      const jobs: WebhookJob[] = [];
      for (const ev of events) {
        for (const ep of endpointList()) {
          if (
            ep.workspace_id !== ev.workspace_id ||
            ep.status !== 'enabled' ||
            ep.created_at > ev.created_at ||
            !endpointWants(ep.events, ev.event)
          )
            continue;
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
      await write({ t: 'wh_fanout', at: now, event_ids: events.map((e) => e.id), jobs });
      return { events: events.length, jobs: jobs.length };
    },
    claim: async (owner, now, leaseMs, max) => {
      doc.open();
      const jobs = state.claim(owner, now, leaseMs, max, (id) => byId(id)?.status === 'enabled');
      return jobs.map((job) => ({ job, endpoint: view(byId(job.endpoint_id)!) }));
    },
    record: async (records) => {
      doc.open();
      if (!records.length) return;
      // A job that is gone (its endpoint was removed meanwhile) still gets its attempt logged.
      const kept = records.map((r) =>
        r.job && !state.has(r.job.id) ? { attempt: r.attempt, ...(r.disable ? { disable: r.disable } : {}) } : r,
      );
      const at = kept.reduce((m, r) => (r.attempt.attempted_at > m ? r.attempt.attempted_at : m), kept[0]!.attempt.attempted_at);
      await write({
        t: 'wh_record',
        at,
        records: kept.map((r) => ({ ...r, attempt: { ...r.attempt, payload: { ...r.attempt.payload } } })),
      });
      const disabled = records.filter((r) => r.disable);
      for (const r of disabled) {
        const e = byId(r.attempt.endpoint_id);
        if (e && e.status === 'enabled') Object.assign(e, { status: 'disabled', disabled_reason: r.disable! });
      }
      if (disabled.length) await doc.commit();
    },
    attempts: async (workspaceId, q) => state.attempts(workspaceId, q),
    attempt: async (workspaceId, id) => state.attempt(workspaceId, id),
    attemptIdsWithPrefix: async (workspaceId, prefix, limit) => state.attemptIdsWithPrefix(workspaceId, prefix, limit),
    depth: async () => state.depth(),
    purge: async (before) => state.purge(before),
  };

  return { endpoints, webhooks };
}
