// Messages that can never be composed (issue: poison messages). html-to-text walks the HTML tree
// recursively and overflows the stack a few thousand levels deep; such a message, or one that
// takes longer than the compose budget, fails the same way on every attempt. It is bounced at once
// with the reason, never retried for hours, and never suppresses the recipient (it is our failure,
// not theirs).

/** Deepest HTML element nesting composed (real mail stays well under a hundred). */
export const MAX_HTML_DEPTH = 1000;
/** CPU time one message may take to compose and sign before it is given up. */
export const COMPOSE_BUDGET_MS = 30_000;

/** A message that cannot be composed, now or ever: bounced, not retried. */
export class PoisonMessage extends Error {
  constructor(why: string) {
    super(`message could not be composed: ${why}`);
    this.name = 'PoisonMessage';
  }
}

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
  'basefont',
  'bgsound',
  'frame',
  'keygen',
]);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext']);
/** Elements whose end tag may be left out: opening one closes an open one of the same name on top. */
const SELF_CLOSING_SIBLINGS = new Set([
  'p',
  'li',
  'dt',
  'dd',
  'option',
  'optgroup',
  'tr',
  'td',
  'th',
  'rb',
  'rt',
  'rp',
  'tbody',
  'thead',
  'tfoot',
  'colgroup',
]);
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'div',
  'dl',
  'fieldset',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);
const TAG = /<(\/?)([a-zA-Z][^\s/>]*)[^>]*?(\/?)>/y;

/**
 * How deep the HTML nests, as a parser would build it (void elements, self-closing tags, implied
 * end tags of p, li, td and the like), in one linear pass. htmlparser2's own Parser is not used:
 * it keeps its open elements with Array.unshift, so deep nesting costs it quadratic time (minutes
 * for 5 MB), which is the very thing this check must not do.
 */
export function htmlDepth(html: string): number {
  const stack: string[] = [];
  // How many of each name are open, so an end tag with no open element is ignored in O(1).
  const open = new Map<string, number>();
  const push = (name: string) => {
    stack.push(name);
    open.set(name, (open.get(name) ?? 0) + 1);
  };
  const pop = () => {
    const name = stack.pop()!;
    open.set(name, open.get(name)! - 1);
  };
  let max = 0;
  for (let i = html.indexOf('<'); i !== -1; i = html.indexOf('<', i + 1)) {
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      if (end === -1) break;
      i = end + 2;
      continue;
    }
    TAG.lastIndex = i;
    const m = TAG.exec(html);
    if (!m) continue;
    const name = m[2]!.toLowerCase();
    i = TAG.lastIndex - 1;
    if (m[1]) {
      // An end tag closes everything above its element (each element is popped once: linear).
      if (!open.get(name)) continue;
      while (stack.length && stack[stack.length - 1] !== name) pop();
      pop();
      continue;
    }
    const top = stack[stack.length - 1];
    if (top === name && SELF_CLOSING_SIBLINGS.has(name)) pop();
    else if (top === 'p' && BLOCK.has(name)) pop();
    if (VOID.has(name) || m[3]) continue;
    push(name);
    if (stack.length > max) max = stack.length;
    if (RAW_TEXT.has(name)) {
      // Its content is text up to its end tag.
      const close = new RegExp(`</${name}`, 'gi');
      close.lastIndex = i;
      const end = close.exec(html);
      if (!end) break;
      i = end.index - 1;
    }
  }
  return max;
}

/**
 * Whether `html` holds fewer than `n` '<': every element opens with one, so it cannot nest `n`
 * deep. Counting them is a tenth of reading the tags (a 10 KB newsletter has a few hundred).
 */
function fewerTagsThan(html: string, n: number): boolean {
  let count = 0;
  for (let i = html.indexOf('<'); i !== -1; i = html.indexOf('<', i + 1)) if (++count >= n) return false;
  return true;
}

/** Throws PoisonMessage when the HTML nests deeper than composing can go. */
export function checkHtmlDepth(html: string | null): void {
  if (html === null || html.length < MAX_HTML_DEPTH * 3 || fewerTagsThan(html, MAX_HTML_DEPTH + 1)) return;
  const depth = htmlDepth(html);
  if (depth > MAX_HTML_DEPTH) throw new PoisonMessage(`its HTML is nested ${depth} levels deep (at most ${MAX_HTML_DEPTH})`);
}

/** True for a failure that every attempt would meet again (a recursion that overflowed included). */
export function isPoison(e: unknown): boolean {
  return e instanceof PoisonMessage || (e instanceof RangeError && /call stack/i.test(e.message));
}
