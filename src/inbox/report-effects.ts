// What a delivery status report or a complaint may change (CONTRACT.md "The MX"): only
// the recipients that the return path it arrived at was used for, and only one it names, or the
// sole recipient of a return path when it names nobody. Nobody can report about anyone else: a
// recipient sees only its own return path (mail/return-path.ts).
//
// - A DSN (RFC 3464): `Action: failed` bounces the record whatever its status class; only a 5.x.x
//   that says the mailbox or domain is bad suppresses (bounce-class.ts); `delayed` (and
//   `delivered`, `relayed`, `expanded`) is only a note.
// - A complaint (RFC 5965): `abuse` and `fraud` suppress; `not-spam` lifts a complaint suppression
//   of that recipient; `auth-failure`, `virus`, `other` (and an unreadable type) are kept, nothing
//   changed.
import type { Message } from '../model/message.js';
import type { InboundDelivery } from '../model/inbox.js';
import type { Random } from '../clock.js';
import { bouncedEvent } from '../model/event.js';
import { classifyReply } from '../mail/bounce-class.js';
import type { Dsn, Feedback } from './reports.js';

const NO_CRLF = /[\r\n]+/g;

export type Effects = Omit<InboundDelivery, 'items' | 'raw'> & { lifted: NonNullable<InboundDelivery['lifted']> };

export const noEffects = (): Effects => ({ updates: [], outbox: [], events: [], suppressions: [], lifted: [] });

/**
 * The records a report may speak for: those of the return paths it arrived at. `anonymous`: the
 * record a report that names nobody is about, when there is exactly one and its return path was
 * used for it alone.
 */
export interface Candidates {
  records: Message[];
  anonymous: Message | null;
}

/** The candidate a report's named addresses point at; `named` false when it names nobody. */
function pick(c: Candidates, addresses: Array<string | null>): { rec: Message | null; named: boolean } {
  const named = addresses.filter((a): a is string => !!a);
  if (!named.length) return { rec: c.anonymous, named: false };
  return { rec: c.records.find((m) => named.includes(m.to.toLowerCase())) ?? null, named: true };
}

export interface Outcome {
  effects: Effects;
  ref: Message | null;
  note: string;
}

export function bounceEffects(dsn: Dsn, c: Candidates, random: Random, now: string): Outcome {
  const effects = noEffects();
  if (!c.records.length)
    return { effects, ref: null, note: 'a delivery report sent to a mailbox, not to a return path of ours; nothing changed' };
  if (dsn.original && !c.records.some((m) => m.message_id === dsn.original))
    return { effects, ref: c.records[0]!, note: 'the report names another message than its return path was used for; nothing changed' };
  if (!dsn.recipients.length) return { effects, ref: c.records[0]!, note: 'a delivery report without a recipient status; nothing changed' };
  let ref: Message | null = null;
  const notes: string[] = [];
  for (const r of dsn.recipients) {
    const { rec, named } = pick(c, [r.recipient, r.original]);
    if (!rec) {
      notes.push(
        named
          ? `${r.recipient ?? r.original}: not the recipient this return path was used for; nothing changed`
          : 'the report names no recipient and its return path was used for several; nothing changed',
      );
      continue;
    }
    ref ??= rec;
    const said = `${r.status}${r.diagnostic ? ` ${r.diagnostic}` : ''}`.replace(NO_CRLF, ' ').slice(0, 500);
    if (r.action === 'failed') {
      ref = rec;
      const error = `bounce report: ${said}`;
      effects.updates.push({ id: rec.id, status: 'bounced', error, bounced_at: now });
      effects.outbox.push(bouncedEvent(random.sortable(), { ...rec, error }, now));
      // A 4.x.x that failed (a message that expired in a receiver's queue) bounces; only a 5.x.x
      // that says the mailbox or the domain is bad suppresses.
      const k = r.status.startsWith('5') ? classifyReply({ code: 550, text: said, stage: 'rcpt' }, 'direct') : null;
      if (k?.outcome === 'permanent') {
        effects.suppressions.push({
          workspace_id: rec.workspace_id,
          address: rec.to.toLowerCase(),
          reason: 'bounce',
          detail: error.slice(0, 500),
          created_at: now,
          message_id: rec.id,
          class: k.class,
        });
      }
      notes.push(`${rec.to}: failed ${r.status || '(no status)'}${k?.outcome === 'permanent' ? ', suppressed' : ', not suppressed'}`);
    } else if (r.action === 'delayed') {
      notes.push(
        `${rec.to}: delivery delayed ${r.status}, still being retried by the receiving side; nothing changed`.replace(/\s+/g, ' '),
      );
    } else notes.push(`${rec.to}: ${r.action || 'unknown action'} ${r.status}`.trim());
  }
  return { effects, ref: ref ?? c.records[0]!, note: notes.join('; ') };
}

const SUPPRESSING = new Set(['abuse', 'fraud']);

/**
 * `c`: the candidates (a return path's record, or a configured feedback loop's send); `from` who
 * sent the report (kept in the suppression's detail); `suppressed` the reason each candidate's
 * address is on the suppression list now, if it is (a not-spam report lifts only a complaint's).
 */
export function complaintEffects(
  feedback: Feedback,
  c: Candidates,
  from: string,
  now: string,
  suppressed: ReadonlyMap<string, string> = new Map(),
): Outcome {
  const effects = noEffects();
  // Original-Rcpt-To names who complained; the returned copy's To: does not (a copy shared by
  // several lists them all), so the return path alone says who when the report leaves it out.
  const { rec, named } = pick(c, feedback.recipients);
  if (!rec) {
    return {
      effects,
      ref: c.records[0] ?? null,
      note: named
        ? 'the complaint is about another recipient than its return path was used for; nothing changed'
        : 'the complaint names no recipient and the copy had several; nothing changed',
    };
  }
  if (feedback.original && feedback.original !== rec.message_id)
    return { effects, ref: rec, note: 'the complaint names another message than its return path was used for; nothing changed' };
  const type = feedback.type;
  if (SUPPRESSING.has(type)) {
    effects.suppressions.push({
      workspace_id: rec.workspace_id,
      address: rec.to.toLowerCase(),
      reason: 'complaint',
      detail: `${type} report from ${from}`.slice(0, 500),
      created_at: now,
      message_id: rec.id,
    });
    return { effects, ref: rec, note: `${type} complaint about ${rec.to}; suppressed` };
  }
  if (type === 'not-spam') {
    const reason = suppressed.get(rec.to.toLowerCase());
    if (reason !== 'complaint')
      return {
        effects,
        ref: rec,
        note: `not-spam report about ${rec.to}; nothing lifted: ${reason ? `the address is suppressed for another reason (${reason}), which only an operator lifts` : 'the address is not suppressed'}`,
      };
    effects.lifted.push({ workspace_id: rec.workspace_id, address: rec.to.toLowerCase() });
    return { effects, ref: rec, note: `not-spam report about ${rec.to}; its complaint suppression is lifted` };
  }
  return { effects, ref: rec, note: `${type} report about ${rec.to}; kept, nothing changed (only abuse and fraud suppress)` };
}
