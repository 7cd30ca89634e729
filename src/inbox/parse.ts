// src/inbox/: the team inbox: what the MX receives (parse, classify, receive), Sent copies, the
// inbox's reads and replies.
//
// Reading a received message, bounded so that a hostile one costs little and never stops the MX:
// the header block is cut at HEADER_MAX for what svc stores and reads itself; a message with more
// than MAX_PARTS part delimiters, nested deeper than MAX_DEPTH or with more than HEADERS_MAX of
// headers in all is not handed to the parser at all (or the parser's own limits refuse it): it is
// kept raw, marked, with what its top header block says. postal-mime parses the rest.
import PostalMime, { type Email } from 'postal-mime';

/** Part delimiters (lines starting with `--`) a message may have before it is kept raw. */
export const MAX_PARTS = 500;
/** MIME nesting depth postal-mime takes. */
export const MAX_DEPTH = 32;
/** All header bytes of all parts together (postal-mime's maxHeadersSize). */
export const HEADERS_MAX = 256 * 1024;
/** The top header block kept with an item and read by svc. */
export const HEADER_MAX = 64 * 1024;

export interface Fields {
  get(name: string): string | undefined;
  all(name: string): string[];
}

/** Header fields of a block (`Name: value` lines, folded lines joined), names case-insensitive. */
export function fieldsOf(block: string): Fields {
  const map = new Map<string, string[]>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const list = map.get(name) ?? [];
    list.push(line.slice(i + 1).trim());
    map.set(name, list);
  }
  return { get: (n) => map.get(n.toLowerCase())?.[0], all: (n) => map.get(n.toLowerCase()) ?? [] };
}

/** The top header block as text (latin1, so every byte is kept), cut at HEADER_MAX. */
export function headerBlock(raw: Buffer): string {
  const limit = Math.min(raw.length, HEADER_MAX);
  let end = raw.indexOf('\r\n\r\n');
  if (end < 0 || end > limit) {
    const lf = raw.indexOf('\n\n');
    end = lf >= 0 && lf <= limit ? lf : limit;
  }
  return raw.toString('latin1', 0, end);
}

/** Message-IDs in a header value (`<a@b> <c@d>`), without their brackets. */
export function messageIds(value: string | undefined): string[] {
  if (!value) return [];
  const ids = [...value.matchAll(/<([^<>\s]{1,250})>/g)].map((m) => m[1]!);
  return ids.length ? ids : value.trim() && !/\s/.test(value.trim()) ? [value.trim()] : [];
}

function countDelimiters(raw: Buffer, max: number): number {
  let n = 0;
  for (let i = raw.indexOf('\n--'); i !== -1; i = raw.indexOf('\n--', i + 3)) if (++n > max) break;
  return n;
}

export interface Parsed {
  /** The top header block's fields. */
  fields: Fields;
  headers: string;
  /** The parsed message, or null when it was kept raw (over a limit, or unreadable). */
  email: Email | null;
  /** Why it was kept raw. */
  problem: string | null;
}

export async function parseMessage(raw: Buffer): Promise<Parsed> {
  const headers = headerBlock(raw);
  const fields = fieldsOf(headers);
  const parts = countDelimiters(raw, MAX_PARTS);
  if (parts > MAX_PARTS) return { fields, headers, email: null, problem: `more than ${MAX_PARTS} MIME parts; kept as received, not parsed` };
  try {
    const email = await PostalMime.parse(raw, { attachmentEncoding: 'utf8', maxNestingDepth: MAX_DEPTH, maxHeadersSize: HEADERS_MAX, maxRfc822NestingDepth: 3 });
    return { fields, headers, email, problem: null };
  } catch (e) {
    return { fields, headers, email: null, problem: `not parsed (${(e as Error).message.slice(0, 200)}); kept as received` };
  }
}
