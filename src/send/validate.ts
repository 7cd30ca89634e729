// The rules of POST /api/v2/emails (spec.md "Endpoints", "Errors") on a parsed JSON body, shared by
// every way in: the result is a SendRequest or a 400 with the spec's text. Unknown fields are
// ignored and never reach the store.
import type { Party, SendRequest } from '../model/send.js';
import addressparser from 'nodemailer/lib/addressparser';
import { SvcError } from '../errors.js';
import { invalidBody, objectBody } from '../request.js';
import { parseMailbox } from '../mail/address.js';

export const MAX_RECIPIENTS = 1000;
/** An address entry with its display name; longer is refused before any parsing. */
const MAX_ENTRY = 512;
const MAX_SUBJECT = 998;

const bad = (msg: string) => new SvcError('invalid_request', msg);
const CRLF = /[\r\n]/;

/** One address, bare or `Name <address>`; null when it is not exactly one valid mailbox. */
export function parseParty(entry: string): Party | null {
  if (entry.length > MAX_ENTRY || CRLF.test(entry)) return null;
  const parsed = addressparser(entry);
  if (parsed.length !== 1) return null;
  const one = parsed[0]!;
  if (one.group !== undefined || !one.address) return null;
  const m = parseMailbox(one.address);
  if ('error' in m) return null;
  return { name: one.name ? one.name : null, address: `${m.local}@${m.domain}` };
}

function partyList(field: string, value: unknown): Party[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalidBody(`${field} must be an array of strings`);
  return (value as string[]).map((entry) => {
    if (CRLF.test(entry)) throw bad(`invalid header value in ${field}: CR and LF are not allowed`);
    const p = parseParty(entry.trim());
    if (!p) throw bad(`invalid recipient in ${field}: ${entry.slice(0, 80)}`);
    return p;
  });
}

function optionalString(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidBody(`${field} must be a string`);
  return value;
}

export function parseSendRequest(body: unknown): SendRequest {
  const b = objectBody(body);
  if (
    b.from === undefined ||
    b.from === null ||
    b.from === '' ||
    b.to === undefined ||
    b.to === null ||
    b.subject === undefined ||
    b.subject === null
  ) {
    throw bad('from, to, subject are required');
  }
  if (typeof b.from !== 'string') throw invalidBody('from must be a string');
  if (typeof b.subject !== 'string') throw invalidBody('subject must be a string');
  if (!Array.isArray(b.to)) throw invalidBody('to must be an array of strings');
  if (CRLF.test(b.from)) throw bad('invalid header value in from: CR and LF are not allowed');
  if (CRLF.test(b.subject)) throw bad('invalid header value in subject: CR and LF are not allowed');
  if (b.subject.length > MAX_SUBJECT) throw bad(`subject is longer than ${MAX_SUBJECT} characters`);
  const from = parseParty(b.from.trim());
  if (!from) throw bad('from address is not a valid email');
  const to = partyList('to', b.to);
  const cc = partyList('cc', b.cc);
  const bcc = partyList('bcc', b.bcc);
  // "to: at least one address"; a message for bcc (or cc) only is sent to undisclosed-recipients.
  if (to.length + cc.length + bcc.length === 0) throw bad('from, to, subject are required');
  if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) throw bad(`too many recipients: at most ${MAX_RECIPIENTS} (to + cc + bcc)`);
  const html = optionalString('body_html', b.body_html);
  const text = optionalString('body_text', b.body_text);
  if (!html && !text) throw bad('body_html or body_text is required');
  return { from, to, cc, bcc, subject: b.subject, html, text };
}
