// Step: a text alternative made from the HTML (html-to-text) when the send gave none. It reads the
// HTML as sent (merge variables filled), before the document, the pixel and tracked links.
import { compile } from 'html-to-text';
import type { Step } from './draft.js';

// Compiled once: building html-to-text's selector tree costs more than converting a 10 KB page.
// Its input limit (16 M characters, past which it truncates and says so on the console) is raised
// above the largest message the relay takes (25 MB).
const toText = compile({ wordwrap: 78, limits: { maxInputLength: 32 * 1024 * 1024 }, selectors: [{ selector: 'img', format: 'skip' }, { selector: 'a', options: { hideLinkHrefIfSameAsText: true } }] });

export function textFromHtml(html: string): string {
  return toText(html);
}

export const textStep: Step = {
  name: 'text',
  perRecipient: () => false,
  apply(draft, { content }) {
    if (draft.text === null && draft.html !== null && content.html !== null) draft.text = textFromHtml(draft.html);
  },
};
