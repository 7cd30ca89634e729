// The team inbox over REST (additions to spec.md, README "Team inbox API"): threads, items of the
// two folders, one item, a reply from the inbox, and deleting a received item. Reading takes read
// or send (a 403 names read); a reply or a delete takes send; a reply counts against the inbox
// sends per day (429 kind inbox_sends).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';
import {
  ErrorBody,
  InboxItem,
  InboxListItem,
  InboxThread,
  InboxThreadSummary,
  Page,
  SendAccepted,
  authErrors,
  checkedByService,
} from '../schemas.js';

const readOrSend = { anyOf: ['read', 'send'], named: 'read' } as const;
const send = { anyOf: ['send'], named: 'send' } as const;
const tags = ['inbox'];
const open = { additionalProperties: true };
const Id = (what: string) => Type.Object({ id: Type.String({ description: what }) });
const notFound = (what: string) => ({ 404: { description: `${what} not found`, ...ErrorBody } });
const invalid = (texts: string) => ({ 400: { description: texts, ...ErrorBody } });

export function inboxRoutes(app: FastifyInstance, service: Service): void {
  // Queries and bodies are the inbox service's to check (src/inbox/inbox.ts), with their texts.
  app.get<{ Querystring: Record<string, string> }>(
    '/api/v2/inbox/threads',
    {
      config: { scope: readOrSend },
      ...checkedByService,
      schema: {
        tags,
        summary: 'svc addition: threads, newest activity first',
        querystring: Type.Object({
          view: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('inbox'), Type.Literal('archived')])),
          search: Type.Optional(Type.String({ maxLength: 200 })),
          limit: Type.Optional(Type.Integer({ minimum: 1 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        response: { 200: Page(InboxThreadSummary), ...invalid('view must be ...'), ...authErrors },
      },
    },
    async (req) => service.inbox.threads(principalOf(req).workspace, req.query),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v2/inbox/threads/:id',
    {
      config: { scope: readOrSend },
      schema: {
        tags,
        summary: 'svc addition: one thread, both folders, oldest first',
        params: Id('a thread id'),
        response: { 200: InboxThread, ...notFound('thread'), ...authErrors },
      },
    },
    async (req) => service.inbox.thread(principalOf(req).workspace, req.params.id),
  );

  // Marking read or archived is team work on the inbox, as a reply is: it takes send.
  app.patch<{ Params: { id: string }; Body: { read?: unknown; archived?: unknown } }>(
    '/api/v2/inbox/threads/:id',
    {
      config: { scope: send },
      ...checkedByService,
      schema: {
        tags,
        summary: 'svc addition: mark a thread read or archived, for the whole team',
        params: Id('a thread id'),
        body: Type.Object({ read: Type.Optional(Type.Boolean()), archived: Type.Optional(Type.Boolean()) }, open),
        response: {
          200: Type.Object(
            { thread_id: Type.String(), read_at: Type.Optional(Type.Unknown()), archived_at: Type.Optional(Type.Unknown()) },
            open,
          ),
          ...invalid('give read or archived (true or false)'),
          ...notFound('thread'),
          ...authErrors,
        },
      },
    },
    async (req) =>
      service.inbox.mark(principalOf(req).workspace, req.params.id, (req.body ?? {}) as { read?: unknown; archived?: unknown }),
  );

  app.get<{ Querystring: Record<string, string> }>(
    '/api/v2/inbox/items',
    {
      config: { scope: readOrSend },
      ...checkedByService,
      schema: {
        tags,
        summary: 'svc addition: items of one folder, newest first',
        querystring: Type.Object({
          folder: Type.Optional(Type.Union([Type.Literal('inbox'), Type.Literal('sent')])),
          thread: Type.Optional(Type.String()),
          kind: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 1 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        response: { 200: Page(InboxListItem), ...invalid('folder must be inbox or sent; kind must be one of ...'), ...authErrors },
      },
    },
    async (req) => service.inbox.list(principalOf(req).workspace, req.query),
  );

  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>(
    '/api/v2/inbox/items/:id',
    {
      config: { scope: readOrSend },
      ...checkedByService,
      schema: {
        tags,
        summary: 'svc addition: one item with its headers and bodies',
        params: Id('an item id'),
        querystring: Type.Object({ raw: Type.Optional(Type.String({ description: '1 or true: the message as received, base64' })) }),
        response: { 200: InboxItem, ...notFound('item'), ...authErrors },
      },
    },
    async (req) => service.inbox.get(principalOf(req).workspace, req.params.id, { raw: req.query.raw === 'true' || req.query.raw === '1' }),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/inbox/items/:id',
    {
      config: { scope: send },
      schema: {
        tags,
        summary: 'svc addition: delete a received item (its bytes stop counting against storage)',
        params: Id('an item id'),
        response: {
          204: { description: 'no body', type: 'null' },
          ...invalid('a Sent copy cannot be deleted'),
          ...notFound('item'),
          ...authErrors,
        },
      },
    },
    async (req, reply) => {
      await service.inbox.remove(principalOf(req).workspace, req.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string }; Body: { text?: unknown; html?: unknown; from?: unknown; to?: unknown } }>(
    '/api/v2/inbox/items/:id/reply',
    {
      config: { scope: send },
      ...checkedByService,
      schema: {
        tags,
        summary: 'svc addition: reply to an item through the one pipeline (counts against inbox sends per day)',
        params: Id('an item id'),
        body: Type.Object(
          {
            text: Type.Optional(Type.String()),
            html: Type.Optional(Type.String()),
            from: Type.Optional(Type.String()),
            to: Type.Optional(Type.String({ description: "one address: by default the item's sender (a Sent copy's recipient)" })),
          },
          open,
        ),
        response: { 202: SendAccepted, ...invalid('text or html is required; ...'), ...notFound('item'), ...authErrors },
      },
    },
    async (req, reply) => {
      const principal = principalOf(req);
      const body = (req.body ?? {}) as { text?: unknown; html?: unknown; from?: unknown; to?: unknown };
      return reply.code(202).send(await service.inbox.reply(principal.workspace, req.params.id, body, principal.key));
    },
  );
}
