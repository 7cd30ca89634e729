// src/send/compose/: composition as named steps (index.ts orders them), MIME last; DKIM follows in
// compose-pool.ts.
//
// Step: an HTML fragment becomes a whole document (<html>, <head> with charset and title, <body>).
import type { Step } from './draft.js';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A full HTML document: a fragment gets <html>, <head> and <body> around it. */
export function wrapHtml(html: string, subject: string): string {
  if (/<html[\s>]/i.test(html)) return html;
  return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width">\n<title>${escapeHtml(subject)}</title>\n</head>\n<body>\n${html}\n</body>\n</html>\n`;
}

export const documentStep: Step = {
  name: 'document',
  perRecipient: () => false,
  apply(draft, { content }) {
    if (draft.html !== null) draft.html = wrapHtml(draft.html, content.subject);
  },
};
