// The REST API described: an OpenAPI 3.1 document made by @fastify/swagger from the routes' own
// schemas (schemas.ts), served without authentication at GET /api/v2/openapi.json and written to
// docs/openapi.json by `npm run docs` (a test fails when the two differ). Only the API's paths are
// in it: the web app's pages, tracking and unsubscribe links are for people, not clients.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from './schemas.js';

export const OPENAPI_PATH = '/api/v2/openapi.json';

/** The paths a client calls: the versioned API and the health check. */
const DOCUMENTED = /^\/(api\/v2\/|healthz$)/;

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc REST API',
        version,
        description:
          'The REST API of svc, a self-hosted transactional email service. Every path takes `Authorization: Bearer svc_...` unless it says otherwise. ' +
          'Errors are `{"error": "..."}`; decide from the status (and `code` for 429). Objects may gain fields: clients ignore what they do not know. ' +
          'Paths and fields marked "svc addition" go beyond the product contract (spec.md).',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'svc_...', description: 'an API key of the workspace' },
        },
        schemas: { Error: ErrorBody },
      },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'send', description: 'POST /api/v2/emails' },
        { name: 'messages', description: 'the message log' },
        { name: 'keys', description: 'the calling key' },
        { name: 'lists', description: 'newsletter lists, subscribers and broadcasts' },
        { name: 'sequences', description: 'sequences of steps sent to new subscribers' },
        { name: 'inbox', description: 'svc addition: the team inbox' },
        { name: 'health', description: 'for load balancers' },
      ],
    },
    // The web app, tracking and list links are not part of the API.
    transform: ({ schema, url }) => ({ schema: DOCUMENTED.test(url) ? schema : { ...schema, hide: true }, url }),
  });
}

/** GET /api/v2/openapi.json: the document, without authentication (a route without a scope rule). */
export function openApiRoutes(app: FastifyInstance): void {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
