// Machine reports in received mail: delivery status notifications (RFC 3464, a
// multipart/report with a message/delivery-status part) and complaint feedback reports (RFC 5965,
// message/feedback-report), with the headers of the message they are about; and automatic replies
// (RFC 3834 Auto-Submitted, and the headers vacation responders use).
import type { Email } from 'postal-mime';
import { fieldsOf, messageIds, type Fields } from './parse.js';

export interface RecipientStatus {
  /** Lowercase address of Final-Recipient (or Original-Recipient). */
  recipient: string | null;
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
  /** The original's To: address, when it returns the headers. */
  originalTo: string | null;
}

const part = (email: Email, types: string[]) => email.attachments.find((a) => types.includes(a.mimeType.toLowerCase()));
const text = (content: unknown): string => (typeof content === 'string' ? content : content instanceof ArrayBuffer ? Buffer.from(content).toString('utf8') : '');
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
  const groups = text(p.content).split(/\r?\n\s*\r?\n/).map(fieldsOf);
  const recipients = groups
    .filter((g) => g.get('action') !== undefined)
    .map((g) => ({
      recipient: addressIn(g.get('final-recipient')) ?? addressIn(g.get('original-recipient')),
      action: (g.get('action') ?? '').toLowerCase().split(/\s/)[0]!,
      status: /\d\.\d{1,3}\.\d{1,3}/.exec(g.get('status') ?? '')?.[0] ?? '',
      diagnostic: g.get('diagnostic-code')?.replace(/^smtp;\s*/i, '').slice(0, 500) ?? null,
    }));
  return { recipients, original: messageIds(original(email)?.get('message-id'))[0] ?? null };
}

export function feedbackReport(fields: Fields, email: Email | null): Feedback | null {
  const p = email && part(email, ['message/feedback-report']);
  if (!p) return isReport(fields, 'feedback-report') ? { type: 'abuse', recipients: [], original: null, originalTo: null } : null;
  const f = fieldsOf(text(p.content));
  const orig = original(email);
  return {
    type: (f.get('feedback-type') ?? 'abuse').toLowerCase(),
    recipients: f.all('original-rcpt-to').map(addressIn).filter((a): a is string => a !== null),
    original: messageIds(orig?.get('message-id'))[0] ?? null,
    originalTo: addressIn(orig?.get('to')),
  };
}

const AUTO_SUBJECT = /^\s*(out of (the )?office|automatic reply|auto(matic)?[- ]?(reply|response)|autoreply|vacation|abwesenheit|absence|r[ée]ponse automatique)\b/i;

/** Why this looks like an automatic reply (RFC 3834 and what responders send), or null. */
export function autoReply(fields: Fields, subject: string): string | null {
  const auto = fields.get('auto-submitted')?.toLowerCase();
  if (auto && !auto.startsWith('no')) return `Auto-Submitted: ${auto}`;
  for (const h of ['x-autoreply', 'x-autorespond', 'x-auto-response']) if (fields.get(h) !== undefined) return `${h} header`;
  const precedence = fields.get('precedence')?.toLowerCase();
  if (precedence === 'auto_reply') return 'Precedence: auto_reply';
  if (AUTO_SUBJECT.test(subject)) return 'an out-of-office subject';
  return null;
}
