// Machine reports in received mail: delivery status notifications (RFC 3464, a
// multipart/report with a message/delivery-status part) and complaint feedback reports (RFC 5965,
// message/feedback-report), with the headers of the message they are about; and automatic replies
// (RFC 3834 Auto-Submitted, and the headers vacation responders use).
import type { Email } from 'postal-mime';
import { fieldsOf, messageIds, type Fields } from '../mail/header-block.js';

export interface RecipientStatus {
  /** Lowercase address of Final-Recipient (or Original-Recipient when there is none). */
  recipient: string | null;
  /** Lowercase address of Original-Recipient (what we sent to, before a forward), when given. */
  original: string | null;
  action: string;
  /** The enhanced status code, e.g. 5.1.1. */
  status: string;
  diagnostic: string | null;
}

export interface Dsn {
  recipients: RecipientStatus[];
  /** The Message-ID of the message the report is about, from the headers it returns. */
  original: string | null;
}

export interface Feedback {
  type: string;
  /** Lowercase addresses the complained-about message was sent to (Original-Rcpt-To). */
  recipients: string[];
  original: string | null;
  /** The original's To: address, when it returns the headers and names one address alone. */
  originalTo: string | null;
}

const part = (email: Email, types: string[]) => email.attachments.find((a) => types.includes(a.mimeType.toLowerCase()));
const text = (content: unknown): string =>
  typeof content === 'string' ? content : content instanceof ArrayBuffer ? Buffer.from(content).toString('utf8') : '';
const addressIn = (value: string | undefined): string | null => {
  if (!value) return null;
  const v = value.includes(';') ? value.slice(value.indexOf(';') + 1) : value;
  const m = /<?([^<>\s;]+@[^<>\s;]+)>?/.exec(v);
  return m ? m[1]!.toLowerCase() : null;
};

/** The returned original's headers (a message/rfc822 or text/rfc822-headers part). */
function original(email: Email): Fields | null {
  const p = part(email, ['message/rfc822', 'text/rfc822-headers', 'message/global', 'message/global-headers']);
  if (!p) return null;
  const t = text(p.content);
  const end = t.search(/\r?\n\r?\n/);
  return fieldsOf(end >= 0 ? t.slice(0, end) : t);
}

function isReport(fields: Fields, kind: string): boolean {
  const ct = (fields.get('content-type') ?? '').toLowerCase();
  return ct.startsWith('multipart/report') && new RegExp(`report-type\\s*=\\s*"?${kind}`).test(ct);
}

export function deliveryStatus(fields: Fields, email: Email | null): Dsn | null {
  const p = email && part(email, ['message/delivery-status', 'message/global-delivery-status']);
  if (!p) return isReport(fields, 'delivery-status') ? { recipients: [], original: null } : null;
  // Per-message fields first, then one group per recipient, separated by blank lines.
  const groups = text(p.content)
    .split(/\r?\n\s*\r?\n/)
    .map(fieldsOf);
  const recipients = groups
    .filter((g) => g.get('action') !== undefined)
    .map((g) => ({
      recipient: addressIn(g.get('final-recipient')) ?? addressIn(g.get('original-recipient')),
      original: addressIn(g.get('original-recipient')),
      action: (g.get('action') ?? '').toLowerCase().split(/\s/)[0]!,
      status: /\d\.\d{1,3}\.\d{1,3}/.exec(g.get('status') ?? '')?.[0] ?? '',
      diagnostic:
        g
          .get('diagnostic-code')
          ?.replace(/^smtp;\s*/i, '')
          .slice(0, 500) ?? null,
    }));
  return { recipients, original: messageIds(original(email)?.get('message-id'))[0] ?? null };
}

export function feedbackReport(fields: Fields, email: Email | null): Feedback | null {
  const p = email && part(email, ['message/feedback-report']);
  // A report whose machine part cannot be read says nothing of its type: it is never acted on.
  if (!p) return isReport(fields, 'feedback-report') ? { type: 'unknown', recipients: [], original: null, originalTo: null } : null;
  const f = fieldsOf(text(p.content));
  const orig = original(email);
  return {
    type: (f.get('feedback-type') ?? 'unknown').toLowerCase().trim(),
    recipients: f
      .all('original-rcpt-to')
      .map(addressIn)
      .filter((a): a is string => a !== null),
    original: messageIds(orig?.get('message-id'))[0] ?? null,
    originalTo: orig?.get('to')?.includes(',') ? null : addressIn(orig?.get('to')),
  };
}

const AUTO_SUBJECT =
  /^\s*(out of (the )?office|automatic reply|auto(matic)?[- ]?(reply|response|antwort)|autoreply|vacation|on vacation|away from (my|the) (desk|office)|i am (out|away)|abwesenheit|absence|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica)\b/i;

/**
 * Why this is automatic mail, not a person writing (RFC 3834 and what responders and list servers
 * send: procmail's `Precedence: junk` and `X-Loop`, Exchange's `X-Auto-Response-Suppress`, a null
 * envelope sender, the usual vacation subjects), or null.
 */
export function autoReply(fields: Fields, subject: string, mailFrom?: string): string | null {
  const auto = fields.get('auto-submitted')?.toLowerCase().trim();
  if (auto && !/^no\b/.test(auto)) return `Auto-Submitted: ${auto}`;
  for (const h of ['x-autoreply', 'x-autorespond', 'x-auto-response', 'x-autogenerated', 'x-loop', 'x-auto-response-suppress'])
    if (fields.get(h) !== undefined) return `${h} header`;
  const precedence = fields.get('precedence')?.toLowerCase().trim();
  if (precedence && /^(auto_reply|bulk|junk|list)\b/.test(precedence)) return `Precedence: ${precedence}`;
  if (mailFrom === '') return 'a null envelope sender (<>)';
  if (AUTO_SUBJECT.test(subject)) return 'an out-of-office subject';
  return null;
}

const PLAIN_BOUNCE_SUBJECT =
  /failure notice|mail delivery failed|undeliver(able|ed)|returned mail|delivery (status notification|failure)|non-?delivery/i;

/**
 * A bounce in one of the formats before RFC 3464 (qmail's "failure notice", Exim's "Mail delivery
 * failed"): each failed address with the reply that refused it, read from the text. Null when the
 * text names no address with a code (then it is not taken for a bounce).
 */
export function plainBounce(subject: string, text: string): Dsn | null {
  if (!PLAIN_BOUNCE_SUBJECT.test(subject)) return null;
  // Only what comes before the returned copy of our own message.
  const cut = text.search(/^-{2,}\s*(below this line is a copy|this is a copy of the message)/im);
  const body = cut >= 0 ? text.slice(0, cut) : text;
  const recipients: RecipientStatus[] = [];
  // qmail: "<addr>:" on a line of its own, then the remote host's words until a blank line.
  for (const m of body.matchAll(/^<([^<>\s]+@[^<>\s]+)>:[ \t]*\r?\n([\s\S]*?)(?:\r?\n[ \t]*\r?\n|(?![\s\S]))/gm))
    recipients.push(statusOf(m[1]!, m[2]!));
  // Exim: the address indented on its own line, the reply indented under it.
  if (!recipients.length)
    for (const m of body.matchAll(/^ {2}([^<>\s]+@[^<>\s]+)\s*\r?\n((?: {4}.*(?:\r?\n|$))+)/gm)) recipients.push(statusOf(m[1]!, m[2]!));
  const named = recipients.filter((r) => r.status !== '');
  return named.length
    ? { recipients: named, original: messageIds(/^message-id:\s*(.*)$/im.exec(cut >= 0 ? text.slice(cut) : '')?.[1])[0] ?? null }
    : null;
}

/** A failed address and the reply text about it: its enhanced code, else its basic code's class. */
function statusOf(address: string, said: string): RecipientStatus {
  const words = said.replace(/\s+/g, ' ').trim();
  const enhanced = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(words)?.[1];
  const basic = /\b([245])\d\d[ -]/.exec(words)?.[1];
  return {
    recipient: address.toLowerCase(),
    original: null,
    action: 'failed',
    status: enhanced ?? (basic ? `${basic}.0.0` : ''),
    diagnostic: words.slice(0, 500) || null,
  };
}
