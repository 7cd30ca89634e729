// File store: message events (opens, clicks), one `track` line per batch in the mail journal, so
// they go with their day as their messages do. This aggregate keeps each record's events; the
// message aggregate applies the same line to the records' counters and the outbox (messages.ts).
import type { MessageEvent } from '../../model/tracking.js';
import type { TrackingStore } from '../port/tracking.js';
import { dayOf, type Journal } from './journal.js';
import type { MessageLookup } from './messages.js';
import type { TrackLine } from './engagement.js';
import { eventShape, copyEvent } from './messages.js';
import type { Line, Replay } from './replay.js';
import { all, each, shape } from './shapes.js';

/** The line kind of this aggregate in the mail journal. */
export function trackingLines(r: Replay): void {
  r.kind('track', all(shape({ at: 's', events: 'a', outbox: 'a' }), each('events', shape({ id: 's', message_id: 's', kind: 's', source: 's', created_at: 's' })), each('outbox', eventShape)));
}

const copyTrack = (e: MessageEvent): MessageEvent => ({ ...e });

export function fileTracking(mail: Journal<Line>, replay: Replay, inbound: Replay, messages: MessageLookup): TrackingStore {
  /** message id → its events, oldest first. */
  const byMessage = new Map<string, MessageEvent[]>();
  messages.onPurge((ids) => ids.forEach((id) => byMessage.delete(id)));
  trackingLines(replay);
  const keep = (line: { events: MessageEvent[] }) => {
    for (const e of line.events) {
      if (!messages.has(e.message_id)) continue;
      let list = byMessage.get(e.message_id);
      if (!list) byMessage.set(e.message_id, (list = []));
      list.push(e);
    }
  };
  replay.on<TrackLine>('track', keep);
  // Replies come with what the MX received (inbox.ts).
  inbound.on<TrackLine>('inbound', keep);

  return {
    byTokens: async (tokens) => tokens.flatMap((t) => {
      const m = messages.byToken(t);
      return m ? [{ id: m.id, workspace_id: m.workspace_id, token: m.token, from: m.from, to: m.to, subject: m.subject, sent_at: m.sent_at }] : [];
    }),
    record: async (events, outbox) => {
      const kept = events.filter((e) => messages.has(e.message_id));
      if (!kept.length) return;
      const ids = new Set(kept.map((e) => e.message_id));
      const line: TrackLine = {
        t: 'track',
        at: kept[kept.length - 1]!.created_at,
        events: kept.map(copyTrack),
        outbox: outbox.filter((o) => ids.has(o.message_id)).map(copyEvent),
      };
      // Durable first, then visible.
      await mail.append(dayOf(line.at), [line]);
      replay.apply(line);
    },
    events: async (workspaceId, messageId) => (byMessage.get(messageId) ?? []).filter((e) => e.workspace_id === workspaceId).map(copyTrack),
  };
}
