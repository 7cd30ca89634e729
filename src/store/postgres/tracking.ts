// Postgres: message events. A batch is one statement: the events of records that still exist,
// their records' counters (as applyEvent in src/model/tracking.ts has them: a counted click adds
// an open when none was counted before it; the first times are kept) and the webhook events.
import type { MessageEvent } from '../../model/tracking.js';
import type { TrackingStore } from '../port/tracking.js';
import type { PgDb, Row } from './db.js';

const EVENT_COLS = 'id, workspace_id, message_id, kind, prefetch, source, reason, url, ip, user_agent, created_at';
type EventRow = Row<MessageEvent, 'created_at'>;
interface CopyRow {
  id: string;
  workspace_id: string;
  token: string;
  from_addr: string;
  to_addr: string;
  subject: string;
  sent_at: Date | null;
}
const COUNTED = `source IN ('human', 'proxy')`;

/** $1 the events, $2 their webhook events (JSON arrays): stored and applied in one statement (the inbox's replies use it too). */
export const RECORD_EVENTS = `WITH ev AS (
     SELECT * FROM jsonb_to_recordset($1) AS e(id text, workspace_id text, message_id text, kind text, prefetch boolean, source text, reason text,
            url text, ip text, user_agent text, created_at timestamptz)
   ), kept AS (
     INSERT INTO message_events (${EVENT_COLS})
     SELECT ev.id, ev.workspace_id, ev.message_id, ev.kind, ev.prefetch, ev.source, ev.reason, ev.url, ev.ip, ev.user_agent, ev.created_at
       FROM ev JOIN messages m ON m.id = ev.message_id
     ON CONFLICT (id) DO NOTHING
     RETURNING message_id, kind, source, created_at
   ), agg AS (
     SELECT message_id,
            count(*) FILTER (WHERE kind = 'open' AND ${COUNTED}) AS opens,
            count(*) FILTER (WHERE kind = 'click' AND ${COUNTED}) AS clicks,
            count(*) FILTER (WHERE kind = 'reply' AND ${COUNTED}) AS replies,
            min(created_at) FILTER (WHERE kind = 'open' AND ${COUNTED}) AS first_open,
            min(created_at) FILTER (WHERE kind = 'click' AND ${COUNTED}) AS first_click,
            min(created_at) FILTER (WHERE kind = 'reply' AND ${COUNTED}) AS first_reply,
            min(created_at) FILTER (WHERE kind = 'open') AS first_any_open
       FROM kept GROUP BY message_id
   ), bonus AS (
     SELECT a.*, (m.open_count = 0 AND a.first_click IS NOT NULL AND (a.first_open IS NULL OR a.first_click < a.first_open)) AS click_opens
       FROM agg a JOIN messages m ON m.id = a.message_id
   ), upd AS (
     UPDATE messages m SET
            open_count = m.open_count + b.opens + CASE WHEN b.click_opens THEN 1 ELSE 0 END,
            opened_at = COALESCE(m.opened_at, LEAST(b.first_open, CASE WHEN b.click_opens THEN b.first_click END)),
            click_count = m.click_count + b.clicks,
            clicked_at = COALESCE(m.clicked_at, b.first_click),
            reply_count = m.reply_count + b.replies,
            replied_at = COALESCE(m.replied_at, b.first_reply),
            first_open_after_seconds = COALESCE(m.first_open_after_seconds,
              CASE WHEN m.sent_at IS NOT NULL AND b.first_any_open IS NOT NULL
                   THEN GREATEST(0, round(extract(epoch FROM b.first_any_open - m.sent_at)))::int END)
       FROM bonus b WHERE m.id = b.message_id
     RETURNING m.id
   )
   INSERT INTO outbox_events (id, workspace_id, event, message_id, payload, created_at)
   SELECT o.id, o.workspace_id, o.event, o.message_id, o.payload, o.created_at
     FROM jsonb_to_recordset($2) AS o(id text, workspace_id text, event text, message_id text, payload jsonb, created_at timestamptz)
    WHERE o.message_id IN (SELECT id FROM upd)`;

export function pgTracking(db: PgDb): TrackingStore {
  return {
    // Only the few columns a hit needs: a batch of 64 whole rows cost more than the record statement.
    byTokens: async (tokens) =>
      tokens.length
        ? (
            await db.rows<CopyRow>(
              `SELECT id, workspace_id, token, from_addr, to_addr, subject, sent_at FROM messages WHERE token = ANY($1)`,
              [tokens],
              'copies_by_token',
            )
          ).map((r) => ({
            id: r.id,
            workspace_id: r.workspace_id,
            token: r.token,
            from: r.from_addr,
            to: r.to_addr,
            subject: r.subject,
            sent_at: r.sent_at?.toISOString() ?? null,
          }))
        : [],
    record: async (events, outbox) => {
      if (!events.length) return;
      await db.rows(RECORD_EVENTS, [JSON.stringify(events), JSON.stringify(outbox)], 'tracking_record');
    },
    events: async (workspaceId, messageId) =>
      (
        await db.rows<EventRow>(
          `SELECT ${EVENT_COLS} FROM message_events WHERE workspace_id = $1 AND message_id = $2 ORDER BY seq`,
          [workspaceId, messageId],
          'message_events',
        )
      ).map((r) => ({
        ...r,
        created_at: r.created_at.toISOString(),
      })),
  };
}
