// How the services read the fields of a request (a REST body or query string, a form of the web
// app, a command's options): each field checked and bounded here, refused with the spec's text.
import { SvcError } from './errors.js';

/** Text fields of a record (a list's name, a subscriber's, a tag): longer is refused. */
export const MAX_TEXT = 1000;

export const invalidBody = (msg: string) => new SvcError('invalid_body', `invalid body: ${msg}`);
export const CONTROL = /[\u0000-\u001f\u007f]/;

/** An optional string field of a body: undefined when absent, refused when not a short single line. */
export function text(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidBody(`${field} must be a string`);
  if (v.length > MAX_TEXT) throw new SvcError('invalid_request', `${field} is longer than ${MAX_TEXT} characters`);
  if (CONTROL.test(v)) throw new SvcError('invalid_request', `${field} must be one line without control characters`);
  return v;
}

/** An optional body of mail (HTML or text) in a request: undefined when absent; bounded by the request's size, not here. */
export function bodyText(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidBody(`${field} must be a string`);
  return v;
}

export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new SvcError('invalid_body');
  return body as Record<string, unknown>;
}

export function wholeNumber(name: string, v: string | number | undefined, dflt: number, min: number): number {
  if (v === undefined || v === '') return dflt;
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min)
    throw new SvcError('invalid_request', `invalid query: ${name} must be a whole number of at least ${min}`);
  return n;
}

/** A text parameter of a query string: absent, or given once (a parameter given twice arrives as a list). */
export function queryText(name: string, v: unknown): string | undefined {
  if (v === undefined || typeof v === 'string') return v;
  throw new SvcError('invalid_request', `invalid query: ${name} must be given once, as text`);
}
