// src/inbox/: the team inbox: what the MX receives (parse, classify, receive), Sent copies, the
// inbox's reads and replies.
//
// Reading a received message, cheaply first and bounded always. On the way in, the MX reads only
// the top header block (what it needs to route, thread and classify: sender, subject, ids,
// automatic-reply headers, whether it is a report), cut at HEADER_MAX; postal-mime parses the
// whole message only for a report (bounce or complaint: its parts are the point), and for
// everything else when someone reads the item (its text and HTML). Before any full parse, a scan of
// the raw bytes refuses messages built to cost: more than MAX_PARTS part delimiters, more than
// MAX_DEPTH multipart boundaries declared, or no end of the header block within HEADER_MAX; such a
// message is kept exactly as received and marked, never parsed. postal-mime's own limits (nesting,
// all headers together) guard what the scan lets through.
import PostalMime, { type Email } from 'postal-mime';
import {
  HEADER_MAX,
  addresses,
  displayName,
  fieldsOf,
  headerBlock,
  headerText,
  messageIds,
  withoutComments,
  type Fields,
} from '../mail/header-block.js';

/** Part delimiters (lines starting with `--`) a message may have and still be parsed. */
export const MAX_PARTS = 500;
/** Multipart boundaries a message may declare (and the nesting depth postal-mime takes). */
export const MAX_DEPTH = 32;
/** All header bytes of all parts together (postal-mime's maxHeadersSize). */
export const HEADERS_MAX = 256 * 1024;
/**
 * How much of a report the MX parses on the way in: its human-readable and machine-readable parts
 * come first and are small; what follows is the original message, which may be 25 MB. Five 23 MB
 * reports parsed whole took the daemon from 148 MB to 1.4 GB; the item keeps every byte all the same.
 */
export const REPORT_PARSE_MAX = 1024 * 1024;
/**
 * How much of a received message is parsed to read it (its text and HTML): its first 2 MB, and of
 * them no more than 100,000 lines. postal-mime's cost is per line: 2 MB of two-byte lines took
 * 281 MB of heap and 2.3 s, 100,000 of them 45 MB and 0.37 s (a 12 MB text of short lines took
 * 900 MB parsed whole). The rest is kept and shown raw (`--raw`).
 */
export const READ_PARSE_MAX = 2 * 1024 * 1024;
export const READ_LINES_MAX = 100_000;

/** The part of a message parsed to read it (READ_PARSE_MAX, READ_LINES_MAX), and whether it is all of it. */
export function readablePart(raw: Buffer): { part: Buffer; whole: boolean } {
  let end = Math.min(raw.length, READ_PARSE_MAX);
  for (let i = 0, at = -1; i < READ_LINES_MAX; i++) {
    at = raw.indexOf(0x0a, at + 1);
    if (at === -1 || at >= end) break;
    if (i === READ_LINES_MAX - 1) end = at + 1;
  }
  return end >= raw.length ? { part: raw, whole: true } : { part: raw.subarray(0, end), whole: false };
}

const NO_CRLF = /[\r\n]+/g;

/** What the MX reads of every message: its top header block. */
export interface Head {
  fields: Fields;
  /** The header block as received (latin1, every byte kept), at most HEADER_MAX. */
  headers: string;
  from: string | null;
  /** The From header's display name, or null. */
  fromName: string | null;
  cc: string[];
  subject: string;
  messageId: string | null;
  inReplyTo: string | null;
  references: string[];
  /** A multipart/report (a delivery status or feedback report): parsed whole. */
  report: boolean;
  /** Why the message is never parsed (built past the limits), or null. */
  problem: string | null;
}

/**
 * A copy of a string cut from the header block that does not keep the block alive. V8 makes a cut
 * of 13 characters or more a view into the string it came from; an inbox that keeps an item's
 * subject or sender in memory (the file store's summaries) would then keep the whole header block
 * (up to HEADER_MAX) with it. Joining and cutting again makes a string of its own.
 */
const own = (s: string): string => (s.length < 13 ? s : (' ' + s).slice(1));
const ownOrNull = (s: string | undefined): string | null => (s === undefined ? null : own(s));

function count(raw: Buffer, needle: string, max: number): number {
  let n = 0;
  for (let i = raw.indexOf(needle); i !== -1; i = raw.indexOf(needle, i + needle.length)) if (++n > max) break;
  return n;
}

/** `boundary=` parameters, in any case (`BOUNDARY=` declares one just as well), up to max + 1. */
function boundaries(raw: Buffer, max: number): number {
  let n = 0;
  // Every occurrence has `=` after "boundary": found by byte, then the eight letters before it
  // compared without case (no copy of the message as a string).
  for (let i = raw.indexOf(0x3d, 8); i !== -1; i = raw.indexOf(0x3d, i + 1)) {
    if ((raw[i - 1]! | 0x20) === 0x79 && raw.toString('latin1', i - 8, i).toLowerCase() === 'boundary' && ++n > max) break;
  }
  return n;
}

/**
 * Whether a message has parts to count: a multipart message or one that wraps a message
 * (message/rfc822, message/global, ... which may wrap a multipart of its own, at any depth); a
 * single part is parsed in one go. Types are compared without case and without comments, as MIME
 * parsers read them, and every Content-Type field counts (parsers differ on which of several they
 * take), so `(x) multipart/mixed` or a second field cannot pass a multipart as one part.
 */
export const declaresParts = (fields: Fields): boolean =>
  fields.all('content-type').some((v) => /^\s*(multipart|message)\//i.test(withoutComments(v)));

export function readHead(raw: Buffer): Head {
  const { block: headers, cut } = headerBlock(raw);
  const fields = fieldsOf(headers);
  const multipart = declaresParts(fields);
  const problem = cut
    ? `a header block over ${HEADER_MAX / 1024} KB; kept as received, not parsed`
    : !multipart
      ? null
      : count(raw, '\n--', MAX_PARTS) > MAX_PARTS
        ? `more than ${MAX_PARTS} MIME parts; kept as received, not parsed`
        : boundaries(raw, MAX_DEPTH) > MAX_DEPTH
          ? `more than ${MAX_DEPTH} multipart levels or groups; kept as received, not parsed`
          : null;
  // Raw UTF-8 in a header (RFC 6532, as SMTPUTF8 mail carries it) as the relay reads it; encoded
  // words (RFC 2047) only where there are any.
  const decode = headerText;
  return {
    fields,
    headers,
    // What an inbox may keep in memory: strings of their own (own), never views into the block.
    from: ownOrNull(addresses(decode(fields.get('from')))[0]),
    fromName: ownOrNull(displayName(decode(fields.get('from'))) ?? undefined),
    cc: addresses(decode(fields.get('cc'))).map(own),
    subject: own(decode(fields.get('subject')).replace(NO_CRLF, ' ').slice(0, 998)),
    messageId: ownOrNull(messageIds(fields.get('message-id'))[0]),
    inReplyTo: ownOrNull(messageIds(fields.get('in-reply-to'))[0]),
    references: messageIds(fields.get('references')).slice(-50).map(own),
    report: /^\s*multipart\/report\b/i.test(fields.get('content-type') ?? ''),
    problem,
  };
}

/** The whole message, parsed within postal-mime's limits; null with the reason when it cannot be. */
export async function parseWhole(raw: Buffer, head: Head): Promise<{ email: Email | null; problem: string | null }> {
  if (head.problem) return { email: null, problem: head.problem };
  try {
    return {
      email: await PostalMime.parse(raw, {
        attachmentEncoding: 'utf8',
        maxNestingDepth: MAX_DEPTH,
        maxHeadersSize: HEADERS_MAX,
        maxRfc822NestingDepth: 3,
      }),
      problem: null,
    };
  } catch (e) {
    return { email: null, problem: `not parsed (${(e as Error).message.slice(0, 200)}); kept as received` };
  }
}
