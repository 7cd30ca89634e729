// `svc messages explain ID`: the whole life of one message record in time order, from what the
// store kept: how it came in (REST or relay, which key, the Idempotency-Key), the suppression
// check, each hand-off attempt (host, address, TLS, time, the remote reply, the DKIM signature of
// the copy), its status changes, its opens and clicks with their labels, and the webhook attempts
// of its events with their status codes.
import { SvcError } from '../errors.js';
import type { DepsOf } from '../deps.js';
import type { Workspace } from '../model/workspace.js';
import { PAUSE_RULE, pausedAfter } from '../send/backoff.js';

export interface TimelineEntry {
  at: string;
  stage: string;
  detail: string;
}

export function messageExplainer({ store }: DepsOf<'messages' | 'tracking' | 'webhooks' | 'inbox'>) {
  return async function explain(ws: Workspace, id: string): Promise<{ id: string; timeline: TimelineEntry[] }> {
    const m = await store.messages.get(ws.id, id);
    if (!m) throw new SvcError('not_found', 'message not found');
    const [attempts, events, hooks, received] = await Promise.all([
      store.messages.attempts(ws.id, id),
      store.tracking.events(ws.id, id),
      store.webhooks.attempts(ws.id, { message_id: id, limit: 1000 }),
      store.inbox.about(ws.id, id),
    ]);
    const t: TimelineEntry[] = [];
    const via = m.via;
    const how =
      m.source === 'api'
        ? 'REST API (POST /api/v2/emails)'
        : m.source === 'relay'
          ? 'SMTP relay'
          : m.source === 'broadcast'
            ? `broadcast${m.campaign_id ? ` (campaign ${m.campaign_id})` : ''}`
            : m.source === 'sequence' && m.subscriber
              ? `sequence step (subscriber ${m.subscriber.id})`
              : m.source === 'system'
                ? "service's own mail (--system-sender; not counted against the plan)"
                : m.source;
    const key = via?.key_prefix ? `, key ${via.key_prefix}… (${via.key_id})` : '';
    const idem = via?.idempotency_key ? `, Idempotency-Key ${JSON.stringify(via.idempotency_key)} (first use: accepted)` : '';
    t.push({
      at: m.created_at,
      stage: 'accepted',
      detail: `from ${m.from} to ${m.to} (${m.kind}) via the ${how}${key}${idem}; Message-ID <${m.message_id}>${m.notes.length ? `; ${m.notes.join('; ')}` : ''}`,
    });
    const suppressed = m.status === 'bounced' && m.error?.startsWith('not sent:');
    t.push({ at: m.created_at, stage: 'suppression', detail: suppressed ? m.error! : `${m.to} is not on the suppression list: queued` });
    for (const a of attempts) {
      // Whether TLS was used is known only for a session that ended in a result; a server that
      // answered (a 421 at the greeting, a refusal at MAIL) had a session, one that did not had none.
      const session = a.tls === true ? 'TLS' : a.tls === false ? 'no TLS' : /^[2-5]\d\d\b/.test(a.reply) ? 'answered' : 'no session';
      const where = a.host ? `${a.host}${a.ip && a.ip !== a.host ? ` [${a.ip}]` : ''}, ${session}, ${a.duration_ms} ms` : 'no host reached';
      const signed = a.dkim ? `; DKIM d=${a.dkim.domain} s=${a.dkim.selector} h=${a.dkim.headers}` : a.host ? '; not DKIM-signed' : '';
      t.push({
        at: a.at,
        stage: `attempt ${a.attempt}`,
        detail: `${where}: ${a.outcome}${a.class ? ` (${a.class})` : ''}: ${a.reply}${signed}`,
      });
    }
    if (m.status === 'queued' && m.next_attempt_at) {
      // A destination that deferred as a whole is paused too (send/backoff.ts): say so.
      const last = attempts.at(-1);
      const note =
        last && pausedAfter(last)
          ? `; ${last.host ?? 'the destination'} deferred as a whole, so the daemon also holds every message to that destination for ${PAUSE_RULE}`
          : '';
      t.push({ at: m.next_attempt_at, stage: 'next attempt', detail: `due; last: ${m.last_error ?? ''}${note}` });
    }
    if (m.sent_at) t.push({ at: m.sent_at, stage: 'sent', detail: 'status sent; message.sent' });
    if (m.bounced_at) t.push({ at: m.bounced_at, stage: 'bounced', detail: `status bounced: ${m.error ?? ''}; message.bounced` });
    for (const e of events) {
      t.push({
        at: e.created_at,
        stage: e.kind,
        detail: `${e.source}${e.prefetch ? ', not counted' : ', counted'} (${e.reason})${e.url ? ` ${e.url}` : ''}${e.ip ? ` from ${e.ip}` : ''}${e.user_agent ? ` "${e.user_agent}"` : ''}`,
      });
    }
    // What the MX received about it: bounce reports (a delay is only noted here), complaints, replies.
    for (const r of received) {
      t.push({
        at: r.created_at,
        stage: `received ${r.kind}`,
        detail: `from ${r.from}: ${JSON.stringify(r.subject)}${r.note ? `; ${r.note}` : ''} (inbox item ${r.id})`,
      });
    }
    for (const h of [...hooks].reverse()) {
      t.push({
        at: h.attempted_at,
        stage: 'webhook',
        detail: `${h.event} to endpoint ${h.endpoint_id} (${h.kind}, attempt ${h.attempt}): ${h.ok ? 'delivered' : 'failed'}, ${h.status_code ?? h.error ?? 'no answer'}`,
      });
    }
    // Stable: entries of one instant keep the order above (accepted before suppression, ...).
    return {
      id,
      timeline: t
        .map((e, i) => ({ e, i }))
        .sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.i - b.i))
        .map(({ e }) => e),
    };
  };
}
