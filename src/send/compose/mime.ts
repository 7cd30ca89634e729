// The draft as MIME (nodemailer's MailComposer): From with its display name, To and Cc (never Bcc;
// `undisclosed-recipients:;` when nobody is shown), RFC 2047 subjects, Date, Message-ID, the steps'
// headers, the HTML and text alternatives and relayed attachments.
import MailComposer from 'nodemailer/lib/mail-composer';
import { buildHeaderValue, isPlainText } from 'nodemailer/lib/mime-funcs';
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';
import type { SendContent } from '../../model/message.js';
import type { Draft } from './draft.js';

/**
 * One part of a multipart/alternative message, byte for byte as MailComposer writes it with
 * quoted-printable chosen (7bit when the text is plain ASCII with no line over 76), encoded by
 * nodemailer's own QP functions. MailComposer takes it as a `raw` part: its MIME tree runs each
 * part through a stream encoder that cost three times the encoding itself (0.75 ms against 0.35 ms
 * per 10 KB message). A test holds the two outputs equal; past 64 KB of text they differ only in
 * where soft line breaks fall (MailComposer's encoder starts afresh every 64 KB slice).
 */
export function alternativePart(type: 'text/plain' | 'text/html', content: string): string {
  const sevenBit = isPlainText(content) && !hasLineOver76(content);
  return `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ${sevenBit ? '7bit' : 'quoted-printable'}\r\n\r\n${sevenBit ? content : qpWrap(qpEncode(Buffer.from(content)), 76)}`;
}

/**
 * nodemailer's `hasLongerLines(content, 76)`, which MailComposer asks before it chooses 7bit: a line
 * (ended by CR, LF, U+2028 or U+2029, as its multiline regexp has it) longer than 76 characters, or any content
 * over 128 KB. Its regexp, built anew on each call, took 60 µs on the bench's 9 KB text; this loop
 * takes a few.
 */
export function hasLineOver76(content: string): boolean {
  if (content.length > 128 * 1024) return true;
  let run = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i);
    if (c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029) run = 0;
    else if (++run > 76) return true;
  }
  return false;
}

/**
 * A multipart/alternative message of two ready parts, written out as MimeNode's stream writes it
 * (its header block, the delimiters, the parts as given) without the stream: build() pipes every
 * node through stream stages and setImmediate turns, which cost about as much as the header work
 * on a 10 KB message. The headers (and so the boundary, chosen while they are written) are
 * MimeNode's own; a test holds the result equal to build()'s.
 */
function alternativeMessage(root: ReturnType<MailComposer['compile']>, parts: readonly [string, string]): Buffer {
  const head = root.buildHeaders();
  const b = root.boundary;
  if (!b || root.childNodes.length !== parts.length) throw new Error(`compose: expected a multipart node of ${parts.length} parts`);
  return Buffer.from(`${head}\r\n\r\n--${b}\r\n${parts.join(`\r\n--${b}\r\n`)}\r\n--${b}--\r\n`);
}

/**
 * `copy`: the copy's Message-ID (without brackets) and who its To: shows: the send's, or a list
 * copy's own (its one subscriber).
 */
export async function renderMime(
  content: SendContent,
  draft: Draft,
  copy: { messageId: string; to: SendContent['to'] } = { messageId: content.message_id, to: content.to },
): Promise<Buffer> {
  const { html, text } = draft;
  const { messageId, to } = copy;
  const parts = text && html ? ([alternativePart('text/plain', text), alternativePart('text/html', html)] as const) : null;
  const shown = (list: SendContent['to']) => list.map((p) => (p.name ? { name: p.name, address: p.address } : p.address));
  const mail = new MailComposer({
    from: content.from_name ? { name: content.from_name, address: content.from } : content.from,
    ...(to.length ? { to: shown(to) } : {}),
    ...(content.cc.length ? { cc: shown(content.cc) } : {}),
    subject: content.subject,
    date: new Date(content.created_at),
    messageId: `<${messageId}>`,
    // A reply from the team inbox answers its message (ids are checked where they are read: no CR/LF).
    ...(content.in_reply_to
      ? {
          inReplyTo: `<${content.in_reply_to}>`,
          references: [...(content.references ?? []), content.in_reply_to].filter((x, i, a) => a.indexOf(x) === i).map((x) => `<${x}>`),
        }
      : {}),
    headers: Object.fromEntries(draft.headers),
    // Two parts are given ready-encoded (see alternativePart); a single part is the message's
    // root node, whose headers MailComposer writes, so it is left to MailComposer whole.
    // (An empty text counts as none, as MailComposer has it.)
    ...(parts ? { text: { raw: parts[0] }, html: { raw: parts[1] } } : {}),
    ...(text && !html ? { text } : {}),
    ...(html && !text ? { html } : {}),
    // Relayed attachments and inline parts, whole (MailComposer makes multipart/mixed and, for
    // parts the HTML references by cid:, multipart/related).
    ...(content.attachments?.length
      ? {
          attachments: content.attachments.map((a) => ({
            content: Buffer.from(a.content, 'base64'),
            // nodemailer writes the parameters back (quoting or RFC 2231 as each needs) and adds name.
            contentType: a.params ? buildHeaderValue({ value: a.content_type, params: a.params }) : a.content_type,
            contentDisposition: a.disposition,
            ...(a.filename ? { filename: a.filename } : {}),
            ...(a.cid ? { cid: a.cid } : {}),
          })),
        }
      : {}),
    // Chosen rather than detected: nodemailer's detection scans every line and costs as much again.
    textEncoding: 'quoted-printable',
    // Nothing in a message may make the composer read a file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const root = mail.compile();
  const built = parts && !content.attachments?.length ? alternativeMessage(root, parts) : await root.build();
  // Mail for bcc (or cc) only shows the empty group, as spec.md asks. nodemailer would quote the
  // group name, so the line is ours, written before signing; it carries no input.
  return to.length ? built : Buffer.concat([Buffer.from('To: undisclosed-recipients:;\r\n'), built]);
}
