// A relayed message's body, read when it is composed (in a compose thread, never on the relay's
// main thread: the relay keeps the message as it came with the little its 250 needs, src/relay).
// postal-mime reads it so that its attachments go on as they came: the same bytes once decoded, the
// same Content-Type parameters.
//
// postal-mime hands a part that is not base64 back line by line, each line ending in LF: a 7bit or
// quoted-printable text file "a CRLF b" comes out as "a LF b LF". Re-encoded as is, the file gains
// a newline and its line ends change, and a detached signature or checksum over it stops
// verifying. Its MIME form is canonical (RFC 2045 §6.7, RFC 2046 §5.1.1): lines end in CRLF and
// the line break before the next boundary belongs to the boundary. canonicalText undoes
// postal-mime's reading to that form, which every decoder (Python's email, a mail client saving
// the file) reads back byte for byte whatever transfer encoding carries it.
import PostalMime, { type Attachment as ParsedAttachment, type Email } from 'postal-mime';
import type { Attachment, SendContent } from '../../model/message.js';
import { PoisonMessage } from '../poison.js';

/** A parameter is kept when its name is a MIME token and its value has no control character. */
const TOKEN = /^[A-Za-z0-9!#$&^_.+-]{1,64}$/;
const CONTROL = /[\x00-\x1f\x7f]/;

/** The postal-mime node fields read here (its tree is internal to it, hence this narrow view). */
interface PartNode {
  contentType: { parsed: { params: Record<string, string> } };
  contentTransferEncoding: { encoding: string };
}

export interface RelayedAttachment extends Omit<ParsedAttachment, 'content'> {
  content: Buffer;
  /** Content-Type parameters other than name (charset, format, …), safe to write back. */
  params: Record<string, string>;
}

export interface RelayedMail extends Omit<Email, 'attachments'> {
  attachments: RelayedAttachment[];
}

/**
 * "x LF y LF" → "x CRLF y": the last LF postal-mime wrote is the boundary's line break (absent
 * when a quoted-printable part ended in a soft break), every other LF that it wrote for a line
 * break is CRLF. A CR LF decoded from quoted-printable (=0D=0A) is kept as it is; a lone LF
 * decoded from =0A becomes CRLF, as postal-mime no longer tells the two apart.
 */
export function canonicalText(bytes: Buffer, keepLastBreak = false): Buffer {
  const end =
    !keepLastBreak && bytes.length && bytes[bytes.length - 1] === 0x0a && bytes[bytes.length - 2] !== 0x0d
      ? bytes.length - 1
      : bytes.length;
  const out: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < end; i = bytes.indexOf(0x0a, i + 1)) {
    if (i > 0 && bytes[i - 1] === 0x0d) continue;
    out.push(bytes.subarray(start, i), CRLF);
    start = i + 1;
  }
  out.push(bytes.subarray(start, end));
  return Buffer.concat(out);
}
const CRLF = Buffer.from('\r\n');
const CALENDAR = new Set(['text/calendar', 'application/ics']);

/**
 * postal-mime, with each attachment's Content-Type parameters and, for a part that was not
 * base64, its canonical bytes. It subclasses the parser's one hook for attachments
 * (collectAttachment, called once per attachment with its MIME node); a test of the relay holds
 * it to what a real parser reads back, so an upgrade that moves the hook fails there.
 */
class RelayParser extends PostalMime {
  readonly extra: Array<{ params: Record<string, string>; encoding: string }> = [];
}
const proto = RelayParser.prototype as unknown as { collectAttachment(node: PartNode, ...rest: unknown[]): void };
const collect = (PostalMime.prototype as unknown as typeof proto).collectAttachment;
proto.collectAttachment = function (this: RelayParser, node: PartNode, ...rest: unknown[]) {
  collect.call(this, node, ...rest);
  const params = Object.fromEntries(
    Object.entries(node.contentType.parsed.params).filter(
      ([k, v]) => k.toLowerCase() !== 'name' && TOKEN.test(k) && typeof v === 'string' && !CONTROL.test(v) && v.length <= 200,
    ),
  );
  this.extra.push({ params, encoding: node.contentTransferEncoding.encoding });
};

export async function parseRelayed(raw: Buffer): Promise<RelayedMail> {
  const parser = new RelayParser({ attachmentEncoding: 'arraybuffer' });
  const mail = await parser.parse(raw);
  if (parser.extra.length !== mail.attachments.length)
    throw new Error('postal-mime no longer reports attachments through collectAttachment');
  return {
    ...mail,
    attachments: mail.attachments.map((a, i) => {
      const { params, encoding } = parser.extra[i]!;
      const bytes = Buffer.from(a.content as ArrayBuffer);
      // postal-mime hands a calendar back as UTF-8 text ending in one line break, which iCalendar
      // requires (RFC 5545 §3.1): its lines are made CRLF, its last included, its charset UTF-8.
      if (CALENDAR.has(a.mimeType)) return { ...a, params: { ...params, charset: 'utf-8' }, content: canonicalText(bytes, true) };
      return { ...a, params, content: encoding === 'base64' ? bytes : canonicalText(bytes) };
    }),
  };
}

const NO_CRLF = /[\r\n]+/g;

/**
 * What the relay's mapping rules (spec.md "SMTP relay" rules 3-5) take from a relayed message's
 * body: text and HTML parts (multipart/alternative is parsed; an HTML body alone gets its text made
 * by the text step), and attachments and inline images whole (more than the spec's "garbled").
 */
export async function relayedBody(raw: Buffer): Promise<Pick<SendContent, 'html' | 'text'> & { attachments: Attachment[] }> {
  let mail: RelayedMail;
  try {
    mail = await parseRelayed(raw);
  } catch (e) {
    // The same bytes fail the same way on every attempt: bounced with the reason, not retried.
    throw new PoisonMessage(`the relayed message could not be read (${(e as Error).message.slice(0, 200)})`);
  }
  return {
    html: mail.html ?? null,
    text: mail.text ?? (mail.html ? null : ''),
    attachments: (mail.attachments ?? []).map((a) => ({
      filename: a.filename ? a.filename.replace(NO_CRLF, ' ') : null,
      content_type: /^[\w.+-]+\/[\w.+-]+$/.test(a.mimeType) ? a.mimeType : 'application/octet-stream',
      disposition: a.disposition === 'inline' && a.contentId ? ('inline' as const) : ('attachment' as const),
      cid: a.contentId ? a.contentId.replace(/^<|>$/g, '').replace(NO_CRLF, '') : null,
      content: a.content.toString('base64'),
      ...(Object.keys(a.params).length ? { params: a.params } : {}),
    })),
  };
}

/** A content as composition reads it: a relayed one (`raw`) with its body read from the message. */
export async function readRelayed(content: SendContent): Promise<SendContent> {
  if (content.raw === undefined) return content;
  const { raw, ...rest } = content;
  const body = await relayedBody(Buffer.from(raw, 'base64'));
  return { ...rest, html: body.html, text: body.text, ...(body.attachments.length ? { attachments: body.attachments } : {}) };
}
