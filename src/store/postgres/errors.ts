// Postgres failures in the service's terms: lost connections and timeouts are store_unavailable
// (503, retry), constraint violations are the conflicts they stand for, the rest is internal.
// Messages never carry the connection URL.
import { SvcError } from '../../errors.js';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '57014',
  '53300',
  '53400',
]);
const UNAVAILABLE_TEXT =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|the database system is (starting|shutting) up|Query read timeout/i;

export function isUnavailable(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return (
    (err.code !== undefined && (UNAVAILABLE_CODES.has(err.code) || err.code.startsWith('08'))) || UNAVAILABLE_TEXT.test(err.message ?? '')
  );
}

/**
 * A failure after the statement may have reached the server: no answer came (the client's read
 * timeout, a connection that broke mid-query), so it may have committed all the same (a server
 * frozen for longer than the timeout finishes its work when it thaws).
 */
export function outcomeUnknown(e: unknown): boolean {
  const err = ((e as { cause?: unknown }).cause ?? e) as { code?: string; message?: string };
  return (
    /Query read timeout|Connection terminated|connection error|Connection ended/i.test(err.message ?? '') ||
    ['ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(err.code ?? '')
  );
}

export function mapPgError(e: unknown): SvcError {
  if (e instanceof SvcError) return e;
  const err = e as { code?: string; message?: string; constraint?: string };
  if (isUnavailable(e)) {
    return new SvcError(
      'store_unavailable',
      `store unavailable: postgres ${err.code ?? ''} ${err.message ?? ''}`.replace(/\s+/g, ' ').trim(),
      { cause: e },
    );
  }
  if (err.code === '23505') return new SvcError('conflict', `already exists (${err.constraint ?? 'unique'})`, { cause: e });
  if (err.code === '23503')
    return new SvcError('not_found', `referenced record not found (${err.constraint ?? 'foreign key'})`, { cause: e });
  // Raised by our own functions (svc_debit): the caller reads the cause.
  if (err.code === 'P0001') return new SvcError('internal', err.message ?? 'raised', { cause: e });
  return new SvcError('internal', `postgres: ${err.message ?? String(e)}`, { cause: e });
}
