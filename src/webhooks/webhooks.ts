// Webhook endpoints and the delivery log as operators use them (`svc webhooks ...`): add (the
// secret shown once), list, remove, disable/enable, rotate the secret; read the log, replay one
// attempt or every failed one, send a test event.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { AttemptQuery, WebhookAttempt, WebhookEndpoint } from '../model/webhook.js';
import type { Workspace } from '../model/workspace.js';
import { parseEvents } from './events.js';
import { checkTarget, resolverFor } from './guard.js';
import { WebhookSender } from './sender.js';
import { newSecret } from './sign.js';
import { deliverOnce } from './dispatch.js';
import { mapLimit } from '../parallel.js';

/** An endpoint as shown: never its secret, nor the one before it (until when that still signs is shown). */
const endpointView = ({ secret: _secret, previous_secret: _previous, workspace_id: _ws, ...view }: WebhookEndpoint) => view;
export type EndpointView = ReturnType<typeof endpointView>;

/** A row of the delivery log as shown (`svc webhooks deliveries`): the payload stays inside. */
export const attemptView = ({ payload: _payload, workspace_id: _ws, ...view }: WebhookAttempt) => view;
export type AttemptView = ReturnType<typeof attemptView>;

/** Replays run this many at once. */
const REPLAY_PARALLEL = 8;

export function webhookService(deps: DepsOf<'endpoints' | 'webhooks'>) {
  const { store, clock, random, config } = deps;

  const sender = () =>
    new WebhookSender({
      timeoutMs: config.webhookTimeoutMs,
      allowInsecure: config.allowInsecureWebhooks,
      resolve: resolverFor(config.dnsServers, config.dnsTimeoutMs),
      connections: REPLAY_PARALLEL,
    });

  async function endpoint(ws: Workspace, id: string): Promise<WebhookEndpoint> {
    const e = await store.endpoints.get(ws.id, id);
    if (!e) throw new SvcError('not_found', `webhook endpoint ${id} not found`);
    return e;
  }

  async function update(ws: Workspace, id: string, patch: Parameters<typeof store.endpoints.update>[2]): Promise<WebhookEndpoint> {
    const e = await store.endpoints.update(ws.id, id, patch);
    if (!e) throw new SvcError('not_found', `webhook endpoint ${id} not found`);
    return e;
  }

  /** Sends each (one sender, a few at a time) and logs every attempt. */
  type Replayed = Pick<WebhookAttempt, 'event' | 'event_id' | 'message_id' | 'payload'> &
    Partial<Pick<WebhookAttempt, 'job_id' | 'attempt'>>;
  /** Each event's latest attempt to each endpoint still there, since `since`, where it failed; oldest first. */
  async function failed(ws: Workspace, since: string) {
    const recent = await store.webhooks.attempts(ws.id, { since, limit: 100_000 });
    const latest = new Map<string, WebhookAttempt>();
    for (const a of recent) if (!latest.has(`${a.endpoint_id}\0${a.event_id}`)) latest.set(`${a.endpoint_id}\0${a.event_id}`, a);
    const failing = [...latest.values()].filter((a) => !a.ok).reverse();
    const endpoints = new Map((await store.endpoints.listByWorkspace(ws.id)).map((e) => [e.id, e]));
    return failing.flatMap((a) => {
      const e = endpoints.get(a.endpoint_id);
      return e ? [{ endpoint: e, from: a, kind: 'replay' as const }] : [];
    });
  }

  async function sendAll(
    ws: Workspace,
    items: Array<{ endpoint: WebhookEndpoint; from: Replayed; kind: 'replay' | 'test' }>,
  ): Promise<AttemptView[]> {
    const s = sender();
    try {
      return await mapLimit(items, REPLAY_PARALLEL, async (it) => {
        const { event, event_id, message_id, payload } = it.from;
        const { attempt } = await deliverOnce(deps, s, it.endpoint, {
          event,
          event_id,
          message_id,
          payload,
          kind: it.kind,
          job_id: null,
          attempt: 1,
        });
        // A replay that was taken settles the automatic retries of the same delivery: the
        // receiver does not get the event again from them (a retry already under way may still).
        const settles =
          attempt.ok && it.from.job_id
            ? {
                job: {
                  id: it.from.job_id,
                  state: 'delivered' as const,
                  attempts: it.from.attempt ?? 1,
                  next_attempt_at: attempt.attempted_at,
                },
              }
            : {};
        await store.webhooks.record([{ attempt, ...settles }]);
        deps.bus?.publish('attempted');
        return attemptView(attempt);
      });
    } finally {
      await s.close();
    }
  }

  return {
    async add(ws: Workspace, url: string, events?: string): Promise<EndpointView & { secret: string }> {
      const target = checkTarget(url, config.allowInsecureWebhooks);
      const e = await store.endpoints.create({
        id: random.uuid(),
        workspace_id: ws.id,
        url: target.url.toString(),
        events: parseEvents(events),
        secret: newSecret(random),
        status: 'enabled',
        disabled_reason: null,
        failing_since: null,
        created_at: clock.now().toISOString(),
        secret_rotated_at: null,
        previous_secret: null,
        previous_secret_until: null,
      });
      return { ...endpointView(e), secret: e.secret };
    },
    async list(ws: Workspace): Promise<EndpointView[]> {
      return (await store.endpoints.listByWorkspace(ws.id)).map(endpointView);
    },
    async remove(ws: Workspace, id: string) {
      if (!(await store.endpoints.remove(ws.id, id))) throw new SvcError('not_found', `webhook endpoint ${id} not found`);
      return { id, removed: true };
    },
    async disable(ws: Workspace, id: string): Promise<EndpointView> {
      return endpointView(await update(ws, id, { status: 'disabled', disabled_reason: 'disabled by an operator' }));
    },
    async enable(ws: Workspace, id: string): Promise<EndpointView> {
      return endpointView(await update(ws, id, { status: 'enabled', disabled_reason: null }));
    },
    /**
     * A new secret, shown once. The old one goes on signing, in X-Svc-Signature-Previous, for
     * `graceMs` (0: it stops at once), so that receivers can be moved to the new one in that time.
     */
    async rotateSecret(ws: Workspace, id: string, graceMs = 0) {
      const now = clock.now();
      const old = await endpoint(ws, id);
      const e = await update(ws, id, {
        secret: newSecret(random),
        secret_rotated_at: now.toISOString(),
        previous_secret: graceMs > 0 ? old.secret : null,
        previous_secret_until: graceMs > 0 ? new Date(now.getTime() + graceMs).toISOString() : null,
      });
      return { id: e.id, secret: e.secret, secret_rotated_at: e.secret_rotated_at, previous_secret_until: e.previous_secret_until };
    },
    async deliveries(ws: Workspace, q: AttemptQuery): Promise<AttemptView[]> {
      if (q.endpoint_id) await endpoint(ws, q.endpoint_id);
      return (await store.webhooks.attempts(ws.id, q)).map(attemptView);
    },
    /** spec.md: a message.sent with test: true and a message_id starting test_. */
    async test(ws: Workspace, endpointId: string): Promise<AttemptView> {
      const e = await endpoint(ws, endpointId);
      const id = `test_${random.bytes(12).toString('hex')}`;
      const payload = { message_id: id, from: `test@${config.serviceDomain}`, subject: 'svc test event', test: true };
      const [a] = await sendAll(ws, [
        { endpoint: e, from: { event: 'message.sent', event_id: id, message_id: id, payload }, kind: 'test' },
      ]);
      return a!;
    },
    /** Sends that attempt's event again, freshly signed and timestamped; a new attempt is logged. */
    async replay(ws: Workspace, attemptId: string): Promise<AttemptView> {
      const a = await store.webhooks.attempt(ws.id, attemptId);
      if (!a) throw new SvcError('not_found', `delivery ${attemptId} not found`);
      const [r] = await sendAll(ws, [{ endpoint: await endpoint(ws, a.endpoint_id), from: a, kind: 'replay' }]);
      return r!;
    },
    /**
     * Every event whose latest attempt since `since` failed, once per endpoint (an event that
     * failed five times is sent once; one delivered since is left alone).
     */
    /** What `replayFailed` would send: the latest attempt of each event to each endpoint since `since`, where it failed. */
    async failedSince(ws: Workspace, since: string): Promise<AttemptView[]> {
      return (await failed(ws, since)).map((i) => attemptView(i.from));
    },
    async replayFailed(ws: Workspace, since: string): Promise<AttemptView[]> {
      return sendAll(ws, await failed(ws, since));
    },
  };
}
