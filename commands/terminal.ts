// What reaches a terminal. Mail headers, remote SMTP replies, DSN diagnostics and webhook
// responses come from outside; printed raw, an escape sequence in a subject could set the window
// title, clear the screen, or write the clipboard (OSC 52). Every line svc prints passes through
// here: control characters become visible (`^[` for ESC, `^A`..`^_`, `^?` for DEL, `\x9b` for a
// C1 control); only line breaks and tabs stay, and only svc's own colour codes when colour is on.

/** svc's own colours (chalk's SGR sequences): kept when colour is on. */
const SGR = /\x1b\[[0-9;]*m/y;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function visible(c: number): string {
  if (c < 0x20) return `^${String.fromCharCode(c + 0x40)}`;
  if (c === 0x7f) return '^?';
  return `\\x${c.toString(16)}`;
}

/**
 * `text` with its control characters made visible. `keepColour`: svc's own SGR colour sequences
 * stay (a TTY with colour on). `inline`: line breaks and tabs are made visible too (a table cell).
 */
export function printable(text: string, opts: { keepColour?: boolean; inline?: boolean } = {}): string {
  if (!CONTROL.test(text) && !(opts.inline && /[\n\t]/.test(text))) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x1b && opts.keepColour) {
      SGR.lastIndex = i;
      const m = SGR.exec(text);
      if (m) {
        out += m[0];
        i += m[0].length - 1;
        continue;
      }
    }
    if ((c === 0x0a || c === 0x09) && !opts.inline) out += text[i];
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) out += c === 0x0a ? '\\n' : c === 0x09 ? '\\t' : visible(c);
    else out += text[i];
  }
  return out;
}

/**
 * JSON for scripts: JSON.stringify escapes C0 controls already; DEL and the C1 controls (U+0080 to
 * U+009F, which some terminals obey as escapes) are escaped too, so a document piped to a terminal
 * is inert. Still valid JSON that parses to the same values.
 */
export function inertJson(doc: unknown, indent: number = 2): string {
  return JSON.stringify(doc, null, indent).replace(/[\x7f-\x9f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
