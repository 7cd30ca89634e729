// Message events (opens, clicks, replies) on either SQL backend. A batch is one transaction: the
// events of records that still exist, each applied to its record's counters by the model's rule
// (applyEvent in src/model/tracking.ts), and the webhook events of the records they changed.
import type { OutboxEvent } from '../../model/event.js';
import type { Message } from '../../model/message.js';
import { applyEvent, type MessageEvent } from '../../model/tracking.js';
import type { TrackingStore } from '../port/tracking.js';
import { bool, flag, iso, isoOrNull, type Q, type SqlDb } from './db.js';

const COUNTERS = [
  'id',
  'sent_at',
  'open_count',
  'opened_at',
  'click_count',
  'clicked_at',
  'reply_count',
  'replied_at',
  'first_open_after_seconds',
] as const;
type Counters = Pick<Message, (typeof COUNTERS)[number]>;

/**
 * Stores the events and what they change, inside a transaction (the inbox's replies use it too):
 * an event whose record is gone is dropped with its webhook event, and one stored before (the same
 * id) changes nothing again.
 */
export async function recordEvents(q: Q, events: MessageEvent[], outbox: OutboxEvent[]): Promise<void> {
  if (!events.length) return;
  const ids = [...new Set(events.map((e) => e.message_id))];
  const records = new Map<string, Counters>(
    (await q.selectFrom('messages').select(COUNTERS).where('id', 'in', ids).execute()).map((r) => [
      r.id,
      {
        ...r,
        sent_at: isoOrNull(r.sent_at),
        opened_at: isoOrNull(r.opened_at),
        clicked_at: isoOrNull(r.clicked_at),
        replied_at: isoOrNull(r.replied_at),
      },
    ]),
  );
  const changed = new Set<string>();
  for (const e of events) {
    const m = records.get(e.message_id);
    if (!m) continue;
    const kept = await q
      .insertInto('message_events')
      .values({ ...e, prefetch: flag(e.prefetch) })
      .onConflict((c) => c.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!kept) continue;
    applyEvent(m as Message, e);
    changed.add(m.id);
  }
  for (const id of changed) {
    const { id: _id, sent_at: _sent, ...set } = records.get(id)!;
    await q.updateTable('messages').set(set).where('id', '=', id).execute();
  }
  const raised = outbox.filter((o) => changed.has(o.message_id));
  if (raised.length)
    await q
      .insertInto('outbox_events')
      .values(raised.map((o) => ({ ...o, payload: JSON.stringify(o.payload) })))
      .execute();
}

export function sqlTracking(db: SqlDb): TrackingStore {
  return {
    // Only the few columns a hit needs.
    byTokens: async (tokens) =>
      tokens.length
        ? (
            await db.run((q) =>
              q
                .selectFrom('messages')
                .select(['id', 'workspace_id', 'token', 'from_addr', 'to_addr', 'subject', 'sent_at'])
                .where('token', 'in', tokens)
                .execute(),
            )
          ).map((r) => ({
            id: r.id,
            workspace_id: r.workspace_id,
            token: r.token,
            from: r.from_addr,
            to: r.to_addr,
            subject: r.subject,
            sent_at: isoOrNull(r.sent_at),
          }))
        : [],
    record: (events, outbox) => (events.length ? db.tx((q) => recordEvents(q, events, outbox)) : Promise.resolve()),
    events: async (workspaceId, messageId) =>
      (
        await db.run((q) =>
          q
            .selectFrom('message_events')
            .select(['id', 'workspace_id', 'message_id', 'kind', 'prefetch', 'source', 'reason', 'url', 'ip', 'user_agent', 'created_at'])
            .where('workspace_id', '=', workspaceId)
            .where('message_id', '=', messageId)
            .orderBy('seq')
            .execute(),
        )
      ).map((r) => ({
        ...r,
        kind: r.kind as MessageEvent['kind'],
        source: r.source as MessageEvent['source'],
        reason: r.reason as MessageEvent['reason'],
        prefetch: bool(r.prefetch),
        created_at: iso(r.created_at),
      })),
  };
}
