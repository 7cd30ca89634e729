// daemon/http/routes/: one file per group of REST routes.
//
// POST /api/v2/emails (scope send) and the message log (read or send; a 403 names read).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';
import {
  ErrorBody,
  Message,
  MessageEvent,
  MessageListItem,
  Page,
  SendAccepted,
  PageQuery,
  QueryOneOf,
  SendRequest,
  authErrors,
} from '../schemas.js';
import { parseSendRequest } from '../../../src/send/validate.js';
import { MAX_PAGE, messageQuery } from '../../../src/messages/log.js';

const readOrSend = { anyOf: ['read', 'send'], named: 'read' } as const;
const Id = Type.Object({ id: Type.String({ description: 'a message id (one record per recipient)' }) });

export function emailRoutes(scope: FastifyInstance, service: Service): void {
  // Handler types come from the schemas (params, query, the answers' shapes).
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  // Its answer is whatever status the send or its replay gave; the body is the pipeline's to read
  // (it parses it again into parties), after fastify has checked its shape.
  app.post(
    '/api/v2/emails',
    {
      config: { scope: { anyOf: ['send'], named: 'send' }, explain: { body: parseSendRequest } },
      schema: {
        tags: ['send'],
        summary: 'Send one message to its recipients',
        description: 'scope send. Idempotency-Key (optional, any string, 24 hours) makes a retry safe.',
        body: SendRequest,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        response: {
          202: { description: 'accepted: queued durably', ...SendAccepted },
          200: { description: 'an Idempotency-Key replay: the first answer, with Idempotent-Replayed: true', ...SendAccepted },
          400: { description: 'invalid body; from, to, subject are required; from address is not a valid email; ...', ...ErrorBody },
          ...authErrors,
          409: { description: 'a request with this Idempotency-Key is still in progress', ...ErrorBody },
          413: { description: 'request body too large', ...ErrorBody },
          500: { description: 'a service-side failure; the key is released when nothing was queued', ...ErrorBody },
        },
      },
    },
    async (req, reply) => {
      const key = req.headers['idempotency-key'];
      const principal = principalOf(req);
      const r = await service.sendJson(principal.workspace, req.body, Array.isArray(key) ? key[0] : key, principal.key);
      if (r.replayed) reply.header('Idempotent-Replayed', 'true');
      // Whatever status the send (or its replay) answered with; one without a schema is sent as JSON.
      return reply.code(r.status as 202).send(r.body as Static<typeof SendAccepted>);
    },
  );

  app.get(
    '/api/v2/messages',
    {
      config: { scope: readOrSend, explain: { querystring: messageQuery } },
      schema: {
        tags: ['messages'],
        summary: 'The message log, newest first',
        querystring: Type.Object({
          status: Type.Optional(QueryOneOf(['queued', 'sent', 'bounced'] as const, false)),
          recipient: Type.Optional(Type.String({ description: 'case-insensitive substring of the recipient' })),
          ...PageQuery(MAX_PAGE),
        }),
        response: { 200: Page(MessageListItem), 400: { description: 'invalid query', ...ErrorBody }, ...authErrors },
      },
    },
    async (req) => service.messages.list(principalOf(req).workspace, req.query),
  );

  app.get(
    '/api/v2/messages/:id',
    {
      config: { scope: readOrSend },
      schema: {
        tags: ['messages'],
        summary: 'One message record',
        params: Id,
        response: { 200: Message, 404: { description: 'message not found', ...ErrorBody }, ...authErrors },
      },
    },
    async (req) => service.messages.get(principalOf(req).workspace, req.params.id),
  );

  app.get(
    '/api/v2/messages/:id/events',
    {
      config: { scope: readOrSend },
      schema: {
        tags: ['messages'],
        summary: "A message's opens, clicks and replies, oldest first",
        params: Id,
        response: { 200: Page(MessageEvent), 404: { description: 'message not found', ...ErrorBody }, ...authErrors },
      },
    },
    async (req) => service.tracking.events(principalOf(req).workspace, req.params.id),
  );
}
