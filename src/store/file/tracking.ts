// File store: message events (opens, clicks), one `track` line per batch in the mail journal, so
// they go with their day as their messages do. This aggregate keeps where each record's events lie
// (line-index.ts) and reads them back when asked; replies, which come in the inbox journal (it is
// compacted, so places there move), are kept as they are. The message aggregate applies the same
// lines to the records' counters and the outbox (messages.ts).
import type { MessageEvent } from '../../model/tracking.js';
import type { TrackingStore } from '../port/tracking.js';
import { dayOf, type Journal, type LineAt } from './journal.js';
import { LineIndex } from './line-index.js';
import type { MessageLookup } from './messages.js';
import type { TrackLine } from './engagement.js';
import { eventShape, copyEvent } from './messages.js';
import type { Line, Replay } from './replay.js';
import { all, each, shape } from './shapes.js';

/** The line kind of this aggregate in the mail journal. */
export function trackingLines(r: Replay): void {
  r.kind(
    'track',
    all(
      shape({ at: 's', events: 'a', outbox: 'a' }),
      each('events', shape({ id: 's', message_id: 's', kind: 's', source: 's', created_at: 's' })),
      each('outbox', eventShape),
    ),
  );
}

const copyTrack = (e: MessageEvent): MessageEvent => ({ ...e });

export function fileTracking(mail: Journal<Line>, replay: Replay, inbound: Replay, messages: MessageLookup): TrackingStore {
  /** message id → where its events lie, oldest first (replies: the events themselves). */
  const byMessage = new LineIndex<MessageEvent, TrackLine>((line, id) => line.events.filter((e) => e.message_id === id));
  messages.onPurge((ids) => ids.forEach((id) => byMessage.delete(id)));
  trackingLines(replay);
  replay.on<TrackLine>('track', (line, at) => {
    for (const e of line.events) if (messages.has(e.message_id)) byMessage.add(e.message_id, at ?? e);
  });
  // Replies come with what the MX received (inbox.ts).
  inbound.on<TrackLine>('inbound', (line) => {
    for (const e of line.events) if (messages.has(e.message_id)) byMessage.add(e.message_id, e);
  });

  return {
    byTokens: async (tokens) =>
      tokens.flatMap((t) => {
        const m = messages.byToken(t);
        return m
          ? [{ id: m.id, workspace_id: m.workspace_id, token: m.token, from: m.from, to: m.to, subject: m.subject, sent_at: m.sent_at }]
          : [];
      }),
    record: async (events, outbox) => {
      const kept = events.filter((e) => messages.has(e.message_id));
      if (!kept.length) return;
      const ids = new Set(kept.map((e) => e.message_id));
      const line: TrackLine = {
        t: 'track',
        at: kept[kept.length - 1]!.created_at,
        events: kept,
        outbox: outbox.filter((o) => ids.has(o.message_id)).map(copyEvent),
      };
      // Durable first, then visible; located: the events are read back from this line.
      replay.apply(line, await mail.appendLocated(dayOf(line.at), line));
    },
    events: async (workspaceId, messageId) =>
      (await byMessage.read(messageId, (at: LineAt) => mail.readAt(at) as Promise<TrackLine | null>))
        .filter((e) => e.workspace_id === workspaceId)
        .map(copyTrack),
  };
}
