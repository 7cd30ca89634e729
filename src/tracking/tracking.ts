// The tracking service: the pixel's and the tracked links' hits (recorded after the answer, in
// batches: recorder.ts), the key that signs links, and a message's events as the API shows them.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { MessageEvent } from '../model/tracking.js';
import type { Workspace } from '../model/workspace.js';
import { linkTarget, LINK_KEY } from '../mail/tracked-link.js';
import { keptSecret } from '../kept-secret.js';
import { trackingRecorder, type TrackedHit } from './recorder.js';

/** The fields of spec.md "Message event", and `source` (what most likely caused it) beside them. */
export function eventView(e: MessageEvent) {
  return {
    kind: e.kind,
    prefetch: e.prefetch,
    ...(e.url !== null ? { url: e.url } : {}),
    ...(e.ip !== null ? { ip: e.ip } : {}),
    user_agent: e.user_agent ?? '',
    created_at: e.created_at,
    source: e.source,
  };
}

export function trackingService(deps: DepsOf<'tracking' | 'secrets' | 'messages'>) {
  const recorder = trackingRecorder(deps, deps.config.prefetchWindowSeconds);
  const linkKey = keptSecret(deps.store, deps.random, LINK_KEY);

  return {
    /** Takes an open or a click after its answer went out (unknown tokens are dropped later). */
    // One literal of one shape (a spread of the route's object cost several µs a hit on the pixel path).
    hit: (h: Omit<TrackedHit, 'at'>) =>
      recorder.hit({ kind: h.kind, token: h.token, url: h.url, ip: h.ip, user_agent: h.user_agent, at: deps.clock.now().toISOString() }),
    drain: () => recorder.drain(),
    linkKey,
    /** Where a tracked link goes, or null when it is not one the service signed. */
    async target(token: string, signature: string, url: string | undefined): Promise<string | null> {
      return linkTarget(await linkKey(), token, signature, url);
    },
    /** GET /api/v2/messages/:id/events: oldest first; another workspace's id is 404. */
    async events(ws: Workspace, id: string) {
      if (!(await deps.store.messages.get(ws.id, id))) throw new SvcError('not_found', 'message not found');
      const data = (await deps.store.tracking.events(ws.id, id)).map(eventView);
      return { data, total: data.length };
    },
  };
}

export type TrackingService = ReturnType<typeof trackingService>;
