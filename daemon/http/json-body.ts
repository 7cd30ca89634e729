// JSON request bodies: only application/json is read; nesting deeper than MAX_DEPTH is refused before
// parsing, so a hostile 20,000-deep document never reaches the service or the store.
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../src/errors.js';

export const MAX_DEPTH = 32;

/** Deepest nesting of objects and arrays in a JSON text, scanning once, strings skipped. */
export function jsonDepth(text: string, stopAt = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) max = depth;
      if (max > stopAt) return max;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (jsonDepth(text, MAX_DEPTH) > MAX_DEPTH) {
      done(new SvcError('invalid_body', `invalid body: nested deeper than ${MAX_DEPTH} levels`), undefined);
      return;
    }
    parse(req, text, (err, value) => done(err ? new SvcError('invalid_body', 'invalid body: not valid JSON') : null, value));
  });
  app.addContentTypeParser('*', (_req, _payload, done) => {
    done(new SvcError('invalid_body', 'invalid body: Content-Type must be application/json'), undefined);
  });
}
