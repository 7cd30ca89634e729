// Composes the copy of a send that one delivery job hands off (nodemailer's MailComposer): From with
// its display name, To and Cc (never Bcc; `undisclosed-recipients:;` when nobody is shown), RFC 2047
// subjects, Date, Message-ID, an HTML fragment wrapped into a document with the open-tracking
// pixel, a text part generated from the HTML when none was given. Links are left as they are.
import MailComposer from 'nodemailer/lib/mail-composer';
import { hasLongerLines, isPlainText } from 'nodemailer/lib/mime-funcs';
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';
import { compile } from 'html-to-text';
import type { OutboundJob, SendContent } from '../model/message.js';
import { checkHtmlDepth } from './poison.js';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A full HTML document: a fragment gets <html>, <head> and <body> around it. */
export function wrapHtml(html: string, subject: string): string {
  if (/<html[\s>]/i.test(html)) return html;
  return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width">\n<title>${escapeHtml(subject)}</title>\n</head>\n<body>\n${html}\n</body>\n</html>\n`;
}

export const pixelUrl = (baseUrl: string, token: string) => `${baseUrl}/t/o/${token}.gif`;

/** Puts the 1x1 open-tracking image just before </body> (or at the end). */
export function addPixel(html: string, url: string): string {
  const img = `<img src="${escapeHtml(url)}" width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`;
  const at = html.toLowerCase().lastIndexOf('</body>');
  return at < 0 ? html + img : html.slice(0, at) + img + html.slice(at);
}

// Compiled once: building html-to-text's selector tree costs more than converting a 10 KB page.
// Its input limit (16 M characters, past which it truncates and says so on the console) is raised
// above the largest message the relay takes (25 MB).
const toText = compile({ wordwrap: 78, limits: { maxInputLength: 32 * 1024 * 1024 }, selectors: [{ selector: 'img', format: 'skip' }, { selector: 'a', options: { hideLinkHrefIfSameAsText: true } }] });

export function textFromHtml(html: string): string {
  return toText(html);
}

/**
 * One part of a multipart/alternative message, byte for byte as MailComposer writes it with
 * quoted-printable chosen (7bit when the text is plain ASCII with no line over 76), encoded by
 * nodemailer's own QP functions. MailComposer takes it as a `raw` part: its MIME tree runs each
 * part through a stream encoder that cost three times the encoding itself (0.75 ms against 0.35 ms
 * per 10 KB message). A test holds the two outputs equal; past 64 KB of text they differ only in
 * where soft line breaks fall (MailComposer's encoder starts afresh every 64 KB slice).
 */
export function alternativePart(type: 'text/plain' | 'text/html', content: string): string {
  const sevenBit = isPlainText(content) && !hasLongerLines(content, 76);
  return `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ${sevenBit ? '7bit' : 'quoted-printable'}\r\n\r\n${sevenBit ? content : qpWrap(qpEncode(Buffer.from(content)), 76)}`;
}

export interface Composed {
  raw: Buffer;
  envelope: { from: string; to: string[] };
}

export async function compose(content: SendContent, job: OutboundJob, recipients: string[], baseUrl: string): Promise<Composed> {
  checkHtmlDepth(content.html);
  // Relay mail is not tracked (spec.md "SMTP relay" rule 6): no pixel.
  const wrapped = content.html === null ? null : wrapHtml(content.html, content.subject);
  const html = wrapped === null || content.source === 'relay' ? wrapped : addPixel(wrapped, pixelUrl(baseUrl, job.open_token));
  const text = content.text ?? (content.html !== null ? textFromHtml(content.html) : null);
  const shown = (list: SendContent['to']) => list.map((p) => (p.name ? { name: p.name, address: p.address } : p.address));
  const mail = new MailComposer({
    from: content.from_name ? { name: content.from_name, address: content.from } : content.from,
    ...(content.to.length ? { to: shown(content.to) } : {}),
    ...(content.cc.length ? { cc: shown(content.cc) } : {}),
    subject: content.subject,
    date: new Date(content.created_at),
    messageId: `<${content.message_id}>`,
    // Gmail's feedback loop reports complaints per these identifiers: the kind of mail, the
    // workspace, the sender (our name last). Every value here is ours: nothing of the request.
    headers: { 'Feedback-ID': `${content.source}:${content.workspace_id}:svc` },
    // Two parts are given ready-encoded (see alternativePart); a single part is the message's
    // root node, whose headers MailComposer writes, so it is left to MailComposer whole.
    // (An empty text counts as none, as MailComposer has it.)
    ...(text && html ? { text: { raw: alternativePart('text/plain', text) }, html: { raw: alternativePart('text/html', html) } } : {}),
    ...(text && !html ? { text } : {}),
    ...(html && !text ? { html } : {}),
    // Relayed attachments and inline parts, whole (MailComposer makes multipart/mixed and, for
    // parts the HTML references by cid:, multipart/related).
    ...(content.attachments?.length
      ? {
          attachments: content.attachments.map((a) => ({
            content: Buffer.from(a.content, 'base64'),
            contentType: a.content_type,
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
  const built = await mail.compile().build();
  // Mail for bcc (or cc) only shows the empty group, as spec.md asks. nodemailer would quote the
  // group name, so the line is ours, written before signing; it carries no input.
  const raw = content.to.length ? built : Buffer.concat([Buffer.from('To: undisclosed-recipients:;\r\n'), built]);
  return { raw, envelope: { from: content.from, to: recipients } };
}
