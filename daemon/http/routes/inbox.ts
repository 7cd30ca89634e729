// The team inbox over REST (additions to spec.md, docs/inbox.md "Team inbox API"): threads, items of the
// two folders, one item, a reply from the inbox, and deleting a received item. Reading takes read
// or send (a 403 names read); a reply or a delete takes send; a reply counts against the inbox
// sends per day (429 kind inbox_sends).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Service } from '../../../src/service.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth.js';
import { itemOptions, itemQuery, replyInput, threadMarks, threadQuery } from '../../../src/inbox/inbox.js';
import { INBOX_KINDS } from '../../../src/model/inbox.js';
import { MAX_PAGE } from '../../../src/messages/log.js';
import { NoBody, Page, PageQuery, SendAccepted, authErrors, QueryOneOf, Unset, invalid, notFound, open } from '../schemas.js';
import { InboxItem, InboxListItem, InboxThread, InboxThreadSummary } from '../inbox-schemas.js';

const readOrSend = { anyOf: ['read', 'send'], named: 'read' } as const;
const send = { anyOf: ['send'], named: 'send' } as const;
const tags = ['inbox'];
const Id = (what: string) => Type.Object({ id: Type.String({ description: what }) });

export function inboxRoutes(scope: FastifyInstance, service: Service): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  // A query or body its schema refuses is answered with the inbox's own parser's text (src/inbox/inbox.ts).
  app.get(
    '/api/v2/inbox/threads',
    {
      config: { scope: readOrSend, explain: { querystring: threadQuery } },
      schema: {
        tags,
        summary: 'svc addition: threads, newest activity first',
        querystring: Type.Object({
          view: Type.Optional(QueryOneOf(['all', 'inbox', 'archived'] as const, true, { description: 'all by default' })),
          search: Type.Optional(Type.String({ description: 'at most 200 characters once trimmed' })),
          ...PageQuery(MAX_PAGE),
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
  app.patch(
    '/api/v2/inbox/threads/:id',
    {
      config: { scope: send, explain: { body: threadMarks } },
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
    async (req) => service.inbox.mark(principalOf(req).workspace, req.params.id, req.body),
  );

  app.get(
    '/api/v2/inbox/items',
    {
      config: { scope: readOrSend, explain: { querystring: itemQuery } },
      schema: {
        tags,
        summary: 'svc addition: items of one folder, newest first',
        querystring: Type.Object({
          folder: Type.Optional(QueryOneOf(['inbox', 'sent'] as const, true, { description: 'inbox by default' })),
          thread: Type.Optional(Type.String({ description: 'a thread id' })),
          kind: Type.Optional(QueryOneOf(INBOX_KINDS, true)),
          ...PageQuery(MAX_PAGE),
        }),
        response: { 200: Page(InboxListItem), ...invalid('folder must be inbox or sent; kind must be one of ...'), ...authErrors },
      },
    },
    async (req) => service.inbox.list(principalOf(req).workspace, req.query),
  );

  app.get(
    '/api/v2/inbox/items/:id',
    {
      config: { scope: readOrSend, explain: { querystring: itemOptions } },
      schema: {
        tags,
        summary: 'svc addition: one item with its headers and bodies',
        params: Id('an item id'),
        querystring: Type.Object({
          raw: Type.Optional(
            QueryOneOf(['1', 'true', '0', 'false'] as const, true, { description: '1 or true: the message as received, base64' }),
          ),
        }),
        response: { 200: InboxItem, ...notFound('item'), ...authErrors },
      },
    },
    async (req) => service.inbox.get(principalOf(req).workspace, req.params.id, itemOptions(req.query)),
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
          204: NoBody,
          ...invalid('a Sent copy cannot be deleted'),
          ...notFound('item'),
          ...authErrors,
        },
      },
    },
    async (req, reply) => {
      await service.inbox.remove(principalOf(req).workspace, req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/v2/inbox/items/:id/reply',
    {
      config: { scope: send, explain: { body: replyInput } },
      schema: {
        tags,
        summary: 'svc addition: reply to an item through the one pipeline (counts against inbox sends per day)',
        params: Id('an item id'),
        body: Type.Object(
          {
            text: Unset(Type.String({ description: 'this or html' })),
            html: Unset(Type.String()),
            from: Unset(Type.String({ description: 'a registered address: by default the one the item was sent to' })),
            to: Unset(Type.String({ description: "one address: by default the item's sender (a Sent copy's recipient)" })),
          },
          open,
        ),
        response: { 202: SendAccepted, ...invalid('text or html is required; ...'), ...notFound('item'), ...authErrors },
      },
    },
    async (req, reply) => {
      const principal = principalOf(req);
      return reply.code(202).send(await service.inbox.reply(principal.workspace, req.params.id, req.body, principal.key));
    },
  );
}
