// Step: a text alternative made from the HTML (html-to-text) when the send gave none. It reads the
// HTML as the send has it, first of all steps: before merge variables (filled in the text after, by
// the merge step, so a broadcast's text is made once, not once per subscriber), the document, the
// pixel and tracked links.
import { compile } from 'html-to-text';
import type { Step } from './draft.js';

// Compiled once: building html-to-text's selector tree costs more than converting a 10 KB page.
// Its input limit (16 M characters, past which it truncates and says so on the console) is raised
// above the largest message the relay takes (25 MB). Lines wrap at 76, not RFC 5322's 78: a text
// with no longer line (and no character outside ASCII) goes out as 7bit, as written, where one
// line of 77 made the whole part quoted-printable with soft breaks (mime.ts).
const toText = compile({
  wordwrap: 76,
  limits: { maxInputLength: 32 * 1024 * 1024 },
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
});

// Merge variables are filled after the conversion (once per content, not per copy), so they must
// come through it as written: a heading's upper-casing, a table's cells, a link's address and the
// wrap would otherwise change `{{first_name|friend}}` into `{{FIRST_NAME|FRIEND}}`. Each is swapped
// for a mark of private-use characters and digits (no case, no space, no entity) and put back after.
const VARIABLE = /\{\{[^{}]*\}\}/g;
const MARK = /\uE000(\d+)\uE001/g;

export function textFromHtml(html: string): string {
  if (!html.includes('{{')) return toText(html);
  const kept: string[] = [];
  const marked = html.replace(VARIABLE, (v) => `\uE000${kept.push(v) - 1}\uE001`);
  // A fallback's entities (`{{first_name|caf&eacute;}}`) are read as the conversion would read them.
  return toText(marked).replace(MARK, (_m, i: string) => {
    const v = kept[Number(i)]!;
    return v.includes('&') ? v.replace(/\|([^{}]*)\}\}$/, (_f, fb: string) => `|${toText(fb)}}}`) : v;
  });
}

/** Contents (HTML plus text, characters) larger than this are converted each time, never kept. */
const CACHED_MAX = 256 * 1024;
/** Texts kept: a compose thread works through a few sends at a time. */
const CACHED = 32;

/**
 * Texts made from HTML, by content id: every job and every copy of one send shares the one made
 * first (a content's HTML never changes once accepted). A compose thread keeps one; bounded to the
 * newest CACHED, none over CACHED_MAX characters. `made` counts conversions (for tests).
 */
export class TextCache {
  readonly #texts = new Map<string, string>();
  made = 0;

  textOf(contentId: string, html: string): string {
    const hit = this.#texts.get(contentId);
    if (hit !== undefined) return hit;
    const text = textFromHtml(html);
    this.made++;
    if (html.length + text.length <= CACHED_MAX) {
      this.#texts.set(contentId, text);
      if (this.#texts.size > CACHED) this.#texts.delete(this.#texts.keys().next().value!);
    }
    return text;
  }
}

export const textStep: Step = {
  name: 'text',
  perRecipient: () => false,
  apply(draft, { content, texts }) {
    // First of the steps: draft.html is still the content's own.
    if (draft.text === null && draft.html !== null && content.html !== null)
      draft.text = texts ? texts.textOf(content.id, draft.html) : textFromHtml(draft.html);
  },
};
