// HTML as svc writes it: the web app's pages and svc's own mail. `html` is a tagged template that
// escapes every value put into it unless the value is HTML already: made by `html` itself, or by
// `raw()`, the one way to put text in unescaped (for markup of ours, never a value from outside),
// named so that each use is found by a search. A list of values is each of them in turn; null,
// undefined and false are nothing.
const SPECIAL = /[&<>"']/g;

/** Text as HTML text or a quoted attribute's value. */
export const escapeHtml = (s: string) => s.replace(SPECIAL, (c) => `&#${c.charCodeAt(0)};`);

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

const piece = (v: HtmlValue): string =>
  v instanceof Html
    ? v.text
    : Array.isArray(v)
      ? v.map(piece).join('')
      : v === null || v === undefined || v === false
        ? ''
        : escapeHtml(String(v));

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup of ours, put in as it is. Never give it a value from outside. */
export const raw = (trusted: string): Html => new Html(trusted);

/** Items with `between` between each two (escaped like any value unless it is Html). */
export const joined = (items: readonly HtmlValue[], between: HtmlValue): Html =>
  html`${items.flatMap((item, i) => (i === 0 ? [item] : [between, item]))}`;
