// File store: one string in memory for a value many records hold. Read back from the journal, each
// record would hold its own copy of its workspace id, content id, sender, subject, campaign id and
// time, and each hand-off attempt its own reply, host and signature: for a 100,000-copy broadcast
// that is some 40 MB of duplicates (measured in a heap snapshot; docs/lists-and-campaigns.md "Broadcasts and sequences").
import type { Message } from '../../model/message.js';
import type { DeliveryAttempt } from '../../model/attempt.js';

/** `v`, or `ref` when they are equal (the one string kept). */
const same = <T>(v: T, ref: T): T => (v === ref ? ref : v);

/** A send's records share the strings of its content and of its first record. */
export function shareRecordStrings(
  content: { id: string; workspace_id: string; from: string; subject: string },
  messages: Message[],
): void {
  const first = messages[0];
  if (!first) return;
  for (const m of messages) {
    m.workspace_id = same(m.workspace_id, content.workspace_id);
    m.content_id = same(m.content_id, content.id);
    m.from = same(m.from, content.from);
    m.subject = same(m.subject, content.subject);
    m.source = same(m.source, first.source);
    m.kind = same(m.kind, first.kind);
    m.status = same(m.status, first.status);
    m.created_at = same(m.created_at, first.created_at);
    if (m.campaign_id) m.campaign_id = same(m.campaign_id, first.campaign_id);
  }
}

/** Equal values as one string (or object), for values that repeat across many records. Bounded: it starts afresh past `max`. */
export class Interner<T = string> {
  #seen = new Map<string, T>();
  constructor(private readonly max = 4096) {}

  get(key: string, value: T): T {
    const had = this.#seen.get(key);
    if (had !== undefined) return had;
    if (this.#seen.size >= this.max) this.#seen.clear();
    this.#seen.set(key, value);
    return value;
  }
}

/** An attempt as kept in memory: its record's strings, and repeated replies, hosts and signatures once. */
export function shareAttemptStrings(
  a: DeliveryAttempt,
  record: Message,
  strings: Interner,
  signatures: Interner<NonNullable<DeliveryAttempt['dkim']>>,
): DeliveryAttempt {
  a.workspace_id = same(a.workspace_id, record.workspace_id);
  a.message_id = same(a.message_id, record.id);
  a.at = strings.get(a.at, a.at);
  a.outcome = strings.get(a.outcome, a.outcome);
  a.reply = strings.get(a.reply, a.reply);
  if (a.host) a.host = strings.get(a.host, a.host);
  if (a.ip) a.ip = strings.get(a.ip, a.ip);
  if (a.dkim) a.dkim = signatures.get(`${a.dkim.domain} ${a.dkim.selector} ${a.dkim.headers}`, a.dkim);
  return a;
}
