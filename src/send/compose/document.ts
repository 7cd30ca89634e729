// src/send/compose/: composition as named steps (index.ts orders them), MIME last; DKIM follows in
// compose-pool.ts.
//
// Step: an HTML fragment becomes a whole document (<html>, <head> with charset and title, <body>),
// with a broadcast's preheader first in the body.
import type { Step } from './draft.js';
import { escapeHtml } from '../../html.js';

/**
 * Preview text a mail client shows beside the subject, first in the body and hidden from the
 * reader; the spacers after it keep the client from filling the preview with the body's own text.
 * Hidden by a box of no size (and Outlook's mso-hide), never by `display:none` or
 * `visibility:hidden`: SpamAssassin counts text hidden those ways as invisible (FONT_INVIS_MSGID).
 */
export function addPreheader(html: string, preheader: string): string {
  const div = `<div style="max-height:0;max-width:0;opacity:0;overflow:hidden;mso-hide:all">${escapeHtml(preheader)}${'&#847;&zwnj;&nbsp;'.repeat(40)}</div>`;
  const body = /<body\b[^>]*>/i.exec(html);
  return body ? html.slice(0, body.index + body[0].length) + div + html.slice(body.index + body[0].length) : div + html;
}

/** A full HTML document: a fragment gets <html>, <head> and <body> around it. */
export function wrapHtml(html: string, subject: string): string {
  if (/<html[\s>]/i.test(html)) return html;
  return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width">\n<title>${escapeHtml(subject)}</title>\n</head>\n<body>\n${html}\n</body>\n</html>\n`;
}

export const documentStep: Step = {
  name: 'document',
  perRecipient: () => false,
  apply(draft, { content }) {
    if (draft.html === null) return;
    draft.html = wrapHtml(draft.html, content.subject);
    if (content.preheader) draft.html = addPreheader(draft.html, content.preheader);
  },
};
