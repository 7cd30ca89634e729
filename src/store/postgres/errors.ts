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

/** Node's words for a connection that failed, said once, with what was being reached. */
const CONNECT: Record<string, string> = {
  ECONNREFUSED: 'nothing listens there (is PostgreSQL running?)',
  ENOTFOUND: 'the host name does not resolve',
  EHOSTUNREACH: 'the host cannot be reached',
  ETIMEDOUT: 'it did not answer in time',
  ECONNRESET: 'the connection was reset',
};

function unavailableText(err: { code?: string; message?: string; address?: string; port?: number }): string {
  const why = err.code ? CONNECT[err.code] : undefined;
  if (why) {
    // `connect ECONNREFUSED 127.0.0.1:5432`: the address is in the message when not on the error.
    const where = err.address
      ? `${err.address}${err.port ? `:${err.port}` : ''}`
      : (/\s(\S+:\d+)$/.exec(err.message ?? '')?.[1] ?? 'its address');
    return `cannot connect to PostgreSQL at ${where} (${err.code}): ${why}`;
  }
  return `postgres ${err.code ?? ''} ${err.message ?? ''}`.replace(/\s+/g, ' ').trim();
}

export function mapPgError(e: unknown): SvcError {
  if (e instanceof SvcError) return e;
  const err = e as { code?: string; message?: string; constraint?: string };
  if (isUnavailable(e)) {
    return new SvcError('store_unavailable', `store unavailable: ${unavailableText(err)}`, { cause: e });
  }
  if (err.code === '23505') return new SvcError('conflict', `already exists (${err.constraint ?? 'unique'})`, { cause: e });
  if (err.code === '23503')
    return new SvcError('not_found', `referenced record not found (${err.constraint ?? 'foreign key'})`, { cause: e });
  // Raised by our own functions (svc_debit): the caller reads the cause.
  if (err.code === 'P0001') return new SvcError('internal', err.message ?? 'raised', { cause: e });
  return new SvcError('internal', `postgres: ${err.message ?? String(e)}`, { cause: e });
}
