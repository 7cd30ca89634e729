// Newsletter lists and subscribers over REST (spec.md "Lists", "Subscribers"). Reading takes read
// or newsletter (a 403 names newsletter); every other call takes newsletter.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ImportResult,
  List,
  ListCreate,
  ListFields,
  Page,
  PageQuery,
  QueryOneOf,
  Subscriber,
  SubscriberFields,
  authErrors,
  NoBody,
  invalid,
  notFound,
} from '../schemas.js';
import { SUBSCRIBER_PAGE_MAX, csvOfBody, listInput, subscriberInput, subscriberQuery } from '../../../src/lists/fields.js';

/** The import's body limit: a 10 MB CSV as a JSON string, with room for its escapes. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

const readOrNewsletter = { anyOf: ['read', 'newsletter'], named: 'newsletter' } as const;
const newsletter = { anyOf: ['newsletter'], named: 'newsletter' } as const;

const tags = ['lists'];
const ListId = Type.Object({ id: Type.String({ description: 'a list id' }) });
const SubId = Type.Object({ id: Type.String({ description: 'a list id' }), sub_id: Type.String({ description: 'a subscriber id' }) });

export function listRoutes(scope: FastifyInstance, service: Service): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const ws = (req: Parameters<typeof principalOf>[0]) => principalOf(req).workspace;
  // A request its schema refuses is answered with its parser's text (src/lists/fields.ts).
  const created = { body: (b: unknown) => listInput(b, true) };
  const changed = { body: (b: unknown) => listInput(b, false) };

  app.get(
    '/api/v2/lists',
    {
      config: { scope: readOrNewsletter },
      schema: { tags, summary: "The workspace's lists", response: { 200: Type.Object({ data: Type.Array(List) }), ...authErrors } },
    },
    async (req) => ({ data: await service.lists.list(ws(req)) }),
  );
  app.post(
    '/api/v2/lists',
    {
      config: { scope: newsletter, explain: created },
      schema: {
        tags,
        summary: 'Create a list',
        body: ListCreate,
        response: { 201: List, ...invalid('name is required; invalid body: ...'), ...authErrors },
      },
    },
    async (req, reply) => reply.code(201).send(await service.lists.create(ws(req), req.body)),
  );
  app.get(
    '/api/v2/lists/:id',
    {
      config: { scope: readOrNewsletter },
      schema: { tags, summary: 'One list', params: ListId, response: { 200: List, ...notFound('list'), ...authErrors } },
    },
    async (req) => service.lists.get(ws(req), req.params.id),
  );
  app.patch(
    '/api/v2/lists/:id',
    {
      config: { scope: newsletter, explain: changed },
      schema: {
        tags,
        summary: 'Change a list: only the fields sent',
        params: ListId,
        body: ListFields,
        response: { 200: List, ...invalid('invalid body: ...'), ...notFound('list'), ...authErrors },
      },
    },
    async (req) => service.lists.update(ws(req), req.params.id, req.body),
  );
  app.delete(
    '/api/v2/lists/:id',
    {
      config: { scope: newsletter },
      schema: {
        tags,
        summary: 'Delete a list and its subscribers (irreversible)',
        params: ListId,
        response: { 204: NoBody, ...notFound('list'), ...authErrors },
      },
    },
    async (req, reply) => {
      await service.lists.remove(ws(req), req.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/v2/lists/:id/subscribers',
    {
      config: { scope: readOrNewsletter, explain: { querystring: subscriberQuery } },
      schema: {
        tags,
        summary: "A list's subscribers",
        params: ListId,
        querystring: Type.Object({
          status: Type.Optional(QueryOneOf(['pending', 'active', 'unsubscribed'] as const, false)),
          ...PageQuery(SUBSCRIBER_PAGE_MAX),
        }),
        response: { 200: Page(Subscriber), ...invalid('invalid query: ...'), ...notFound('list'), ...authErrors },
      },
    },
    async (req) => service.lists.subscribers(ws(req), req.params.id, req.query),
  );
  app.post(
    '/api/v2/lists/:id/subscribers',
    {
      config: { scope: newsletter, explain: { body: subscriberInput } },
      schema: {
        tags,
        summary: 'Add a subscriber, or update the name of one already on the list',
        params: ListId,
        body: SubscriberFields,
        response: { 201: Subscriber, ...invalid('invalid email: <detail>; invalid body: ...'), ...notFound('list'), ...authErrors },
      },
    },
    async (req, reply) => reply.code(201).send(await service.lists.subscribe(ws(req), req.params.id, req.body)),
  );
  // A 10 MB CSV in a JSON string (quotes and newlines escaped) fits this route's own body limit.
  app.post(
    '/api/v2/lists/:id/subscribers/import',
    {
      config: { scope: newsletter, explain: { body: csvOfBody } },
      bodyLimit: IMPORT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Import subscribers from CSV (email, name or first_name or full_name, tags)',
        params: ListId,
        body: Type.Object({ csv: Type.String() }, { additionalProperties: true }),
        response: { 200: ImportResult, ...invalid('csv body required'), ...notFound('list'), ...authErrors },
      },
    },
    async (req) => service.lists.importBody(ws(req), req.params.id, req.body),
  );
  app.delete(
    '/api/v2/lists/:id/subscribers/:sub_id',
    {
      config: { scope: newsletter },
      schema: { tags, summary: 'Remove a subscriber', params: SubId, response: { 204: NoBody, ...notFound('subscriber'), ...authErrors } },
    },
    async (req, reply) => {
      await service.lists.removeSubscriber(ws(req), req.params.id, req.params.sub_id);
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/api/v2/lists/:id/subscribers/:sub_id/unsubscribe',
    {
      config: { scope: newsletter },
      schema: {
        tags,
        summary: 'Unsubscribe (stops its sequences, suppresses the address)',
        params: SubId,
        response: { 200: Subscriber, ...notFound('subscriber'), ...authErrors },
      },
    },
    async (req) => service.lists.unsubscribe(ws(req), req.params.id, req.params.sub_id),
  );
}
