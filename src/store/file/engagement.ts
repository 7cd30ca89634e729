// File store: what other aggregates' lines change on message records. Opens and clicks (`track`
// lines, tracking.ts) change counters and may queue webhook events; what the MX received
// (`inbound` lines of the inbox journal, inbox.ts) may bounce a record, count a reply, and queue
// their events. The message aggregate (messages.ts) owns the records and calls this once.
import type { OutboxEvent } from '../../model/event.js';
import type { Message } from '../../model/message.js';
import { applyEvent, type MessageEvent } from '../../model/tracking.js';
import type { InboundLine } from './inbox-lines.js';
import type { Line, Replay } from './replay.js';

/** A batch of message events (tracking.ts writes it; the message aggregate applies it to its records). */
export interface TrackLine extends Line {
  t: 'track';
  events: MessageEvent[];
  outbox: OutboxEvent[];
}

export function observeEngagement(mail: Replay, inbound: Replay, byId: Map<string, Message>, outboxed: Map<string, OutboxEvent>): void {
  mail.on<TrackLine>('track', (line) => {
    for (const e of line.events) {
      const m = byId.get(e.message_id);
      if (m) applyEvent(m, e);
    }
    for (const e of line.outbox) if (byId.has(e.message_id)) outboxed.set(e.id, e);
  });
  // A permanent bounce report bounces a record not bounced yet; a reply counts.
  inbound.on<InboundLine>('inbound', (line) => {
    const bounced = new Set<string>();
    for (const u of line.updates) {
      const m = byId.get(u.id);
      if (!m || m.status === 'bounced') continue;
      Object.assign(m, u);
      bounced.add(m.id);
    }
    for (const e of line.events) {
      const m = byId.get(e.message_id);
      if (m) applyEvent(m, e);
    }
    // message.bounced only for a record this line bounced (never twice for one record).
    for (const e of line.outbox)
      if (byId.has(e.message_id) && (e.event !== 'message.bounced' || bounced.has(e.message_id))) outboxed.set(e.id, e);
  });
}
