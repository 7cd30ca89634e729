// src/mail/: a message's top header block, read without parsing the message: its fields, their
// addresses and Message-IDs, and a value's text (raw UTF-8 as RFC 6532 has it, encoded words as
// RFC 2047 has them). The MX reads every message this way on the way in, and the relay reads what
// its accept decision needs (To, Cc, Subject) this way before the 250; the whole message is parsed
// later, off the main thread.
import { addressParser, decodeWords } from 'postal-mime';

/** The top header block read at most (by the MX on the way in, by the relay before its 250). */
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

/** Message-IDs in a header value (`<a@b> <c@d>`), without their brackets. */
export function messageIds(value: string | undefined): string[] {
  if (!value) return [];
  const ids = [...value.matchAll(/<([^<>\s]{1,250})>/g)].map((m) => m[1]!);
  return ids.length ? ids : value.trim() && !/\s/.test(value.trim()) ? [value.trim()] : [];
}

/** `addr@x` or `Name <addr@x>` alone: the common From, read without the full address parser. */
const SIMPLE = /^\s*(?:[^<>",;:@\\]*<([^<>\s",;:\\]+@[^<>\s",;:\\]+)>|([^<>\s",;:\\]+@[^<>\s",;:\\]+))\s*$/;
export const addresses = (value: string | undefined): string[] => {
  if (!value) return [];
  const simple = SIMPLE.exec(value);
  if (simple) return [(simple[1] ?? simple[2])!.toLowerCase()];
  return addressParser(value, { flatten: true }).flatMap((a) => ('address' in a && a.address ? [a.address.toLowerCase()] : []));
};

/**
 * A structured header value without its comments (RFC 5322 §3.2.2: parenthesised text, nested,
 * with backslash escapes, outside quoted strings), as MIME parsers read it: `(x) multipart/mixed`
 * is multipart/mixed. An unbalanced `(` comments out the rest, as a lenient parser reads it.
 */
export function withoutComments(value: string): string {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && (quoted || depth > 0)) {
      if (depth === 0) out += c + (value[i + 1] ?? '');
      i++;
    } else if (depth > 0) {
      if (c === '(') depth++;
      else if (c === ')') depth--;
    } else if (c === '"') {
      quoted = !quoted;
      out += c;
    } else if (c === '(' && !quoted) {
      depth = 1;
      out += ' ';
    } else out += c;
  }
  return out;
}

/** The display name of the first address of a header value (already decoded), or null. */
export const displayName = (value: string | undefined): string | null => {
  if (!value || !/[<"(]/.test(value)) return null;
  const first = addressParser(value, { flatten: true })[0];
  const name = first && 'name' in first ? first.name.replace(/[\x00-\x1f\x7f]+/g, ' ').trim() : '';
  return name ? name.slice(0, 200) : null;
};

const NON_ASCII = /[\x80-\xff]/;
const decoder = new TextDecoder('utf-8', { fatal: true });
/** A header value read as latin1 (every byte kept) as its UTF-8 text when its bytes are UTF-8; else as is. */
function utf8(v: string): string {
  if (!NON_ASCII.test(v)) return v;
  try {
    return decoder.decode(Buffer.from(v, 'latin1'));
  } catch {
    return v;
  }
}

/** A header value as text: its raw UTF-8 read as such, then its encoded words decoded (only where there are any). */
export function headerText(v: string | undefined): string {
  if (v === undefined) return '';
  const text = utf8(v);
  return text.includes('=?') ? decodeWords(text) : text;
}

/**
 * The top header block as received (latin1, every byte kept), up to its blank line (CRLF or bare
 * LF); `cut` when it does not end within HEADER_MAX bytes (then the block is its first HEADER_MAX).
 */
export function headerBlock(raw: Buffer): { block: string; cut: boolean } {
  const limit = Math.min(raw.length, HEADER_MAX);
  let end = raw.indexOf('\r\n\r\n');
  // A bare-LF message ends its headers at \n\n: looked for only before the CRLF end (or the limit).
  const lf = raw.subarray(0, end >= 0 ? end : limit + 2).indexOf('\n\n');
  if (end < 0 || (lf >= 0 && lf < end)) end = lf;
  const cut = end < 0 || end > limit;
  return { block: raw.toString('latin1', 0, cut ? limit : end), cut };
}

/**
 * The message without the top-block fields `drop` picks (by lower-cased name and unfolded value),
 * folded lines and all; the same buffer when it picks none. Only a block that ends within
 * HEADER_MAX is read (a longer one is kept as it came).
 */
export function withoutFields(raw: Buffer, drop: (name: string, value: string) => boolean): Buffer {
  const { block, cut } = headerBlock(raw);
  if (cut) return raw;
  const fields = block.split(/\r?\n(?![ \t])/);
  const kept = fields.filter((f) => {
    const i = f.indexOf(':');
    return (
      i <= 0 ||
      !drop(
        f.slice(0, i).trim().toLowerCase(),
        f
          .slice(i + 1)
          .replace(/\r?\n[ \t]+/g, ' ')
          .trim(),
      )
    );
  });
  if (kept.length === fields.length) return raw;
  const eol = /\r\n/.test(block) ? '\r\n' : '\n';
  // Every field dropped: the message starts at its blank line's end, with no empty header block left.
  if (!kept.length) return raw.subarray(block.length + eol.length);
  return Buffer.concat([Buffer.from(kept.join(eol), 'latin1'), raw.subarray(block.length)]);
}
