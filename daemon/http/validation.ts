// Fastify checks each route's request (body, query string, path parameters) against its schema
// (schemas.ts and the route files) before the handler runs. A refused request is answered with the
// text its service gives for the same input, not ajv's: the route names, in its config, the pure
// parser its service applies first (`explain`), and the error table (errors.ts) runs it on the
// refused input. spec.md's texts so stay in one place, the services, which every way in (REST,
// relay, command line) shares; fastify only refuses earlier, and the handlers' types come from the
// schemas.
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { isSvcError, SvcError } from '../../src/errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Per request part, the service's own parser of it: run on an input the schema refused, its
     * error is the answer. A parser that accepts what the schema refused (the schema is stricter
     * than the service, a mistake the schema tests look for) leaves ajv's message as the answer.
     */
    explain?: Partial<Record<RequestPart, (input: never) => unknown>>;
  }
}

export type RequestPart = 'body' | 'querystring' | 'params' | 'headers';

// Bodies are JSON: nothing coerced, nothing removed (the services ignore the fields they do not
// know), no defaults written in. Query strings and path parameters are text: a number there is
// read as one (`limit=10`), and nothing else is changed either. The first error is enough: its
// text comes from the service anyway, and allErrors is a denial-of-service risk (ajv's advice).
const common: Options = { removeAdditional: false, useDefaults: false, allErrors: false, strict: true };

/** fastify's validatorCompiler: two ajv instances, one per kind of input, made per app. */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const json = addFormats.default(new Ajv({ ...common, coerceTypes: false }));
  const text = addFormats.default(new Ajv({ ...common, coerceTypes: true }));
  return ({ schema, httpPart }) => (httpPart === 'body' ? json : text).compile(schema as object);
}

interface ValidationError extends Error {
  validation: { instancePath: string; message?: string }[];
  validationContext?: RequestPart;
}

const inputOf = (req: FastifyRequest, part: RequestPart): unknown =>
  part === 'body' ? req.body : part === 'querystring' ? req.query : part === 'params' ? req.params : req.headers;

/**
 * The answer to a request its schema refused: the service's error for that input, or else ajv's
 * first message, named for the part (`invalid body: to must be array`).
 */
export function refusal(req: FastifyRequest, err: ValidationError): SvcError {
  const part = err.validationContext ?? 'body';
  const explain = req.routeOptions.config.explain?.[part];
  if (explain) {
    try {
      explain(inputOf(req, part) as never);
    } catch (e) {
      // A parser that trips on a shape it never expected (an array for a text, say) leaves the answer to ajv.
      if (isSvcError(e)) return e;
    }
  }
  const first = err.validation[0];
  const field = first?.instancePath.replace(/^\//, '').replace(/\//g, '.') ?? '';
  const what = part === 'body' ? 'body' : part === 'querystring' ? 'query' : part === 'params' ? 'path' : 'headers';
  const text = `invalid ${what}: ${field ? `${field} ` : ''}${first?.message ?? 'not accepted'}`;
  return part === 'body' ? new SvcError('invalid_body', text) : new SvcError('invalid_request', text);
}
