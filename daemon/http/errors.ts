// The REST transport's one error table: a SvcError's kind gives the status (src/errors.ts); fastify's
// own errors are mapped to the spec's texts here. Every error body is {"error": "..."}.
import { PIXEL_PATH, sendPixel } from './pixel.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSvcError } from '../../src/errors.js';
import { refusal } from './validation.js';
import type { Log } from '../../src/log.js';
import type { EventLog } from '../../src/event-log.js';

const fastifyCodes: Record<string, { status: number; error: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: 'request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 400, error: 'invalid body: Content-Type must be application/json' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, error: 'invalid body: empty' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, error: 'invalid body: wrong Content-Length' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, error: 'invalid body: not valid JSON' },
};

/** The router's refusals, before any route runs: the API's `{"error": ...}` body, never fastify's. */
const routerCodes: Record<string, { status: number; error: string }> = {
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, error: 'path too long: a path segment is over 100 characters' },
  FST_ERR_BAD_URL: { status: 400, error: 'invalid path' },
};

export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  // Even a pixel URL the router cannot read gets the pixel (nothing to tell a forged token by).
  if (req.url.startsWith(PIXEL_PATH)) return void sendPixel(reply);
  const known = err.code ? routerCodes[err.code] : undefined;
  void reply.code(known?.status ?? 400).send({ error: known?.error ?? 'invalid request' });
}

export function registerErrors(app: FastifyInstance, log: Log, events?: EventLog): void {
  app.setErrorHandler((thrown: FastifyError, req, reply) => {
    // A request its schema refused: answered as its service would answer the same input.
    const err = thrown.validation ? refusal(req, thrown as Parameters<typeof refusal>[1]) : thrown;
    if (isSvcError(err)) {
      // A store outage fails every request: one line a minute per kind says so, with the count.
      if (err.spec.http >= 500) {
        if (events)
          events.event('error', `api ${err.kind}`, {
            method: req.method,
            route: req.routeOptions.url ?? req.url,
            status: err.spec.http,
            error: err.message,
          });
        else log.error(`${req.method} ${req.routeOptions.url ?? req.url}: ${err.message}`);
      }
      if (err.headers) reply.headers(err.headers);
      // Damaged data is the operator's to see (logged above, with the file and place), not a client's.
      if (err.kind === 'store_corrupt') return reply.code(err.spec.http).send({ error: err.spec.message });
      return reply.code(err.spec.http).send({ error: err.message, ...err.details });
    }
    const known = err.code ? fastifyCodes[err.code] : undefined;
    if (known) return reply.code(known.status).send({ error: known.error });
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: err.message });
    }
    log.error(`${req.method} ${req.routeOptions.url ?? req.url}: ${err.message}`);
    return reply.code(500).send({ error: 'internal error' });
  });
}
