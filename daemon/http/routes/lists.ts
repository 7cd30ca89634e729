// Newsletter lists and subscribers over REST (spec.md "Lists", "Subscribers"). Reading takes read
// or newsletter (a 403 names newsletter); every other call takes newsletter.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';
import { ErrorBody, ImportResult, List, ListFields, Page, Subscriber, SubscriberFields, authErrors, checkedByService } from '../schemas.js';

/** The import's body limit: a 10 MB CSV as a JSON string, with room for its escapes. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

const readOrNewsletter = { anyOf: ['read', 'newsletter'], named: 'newsletter' } as const;
const newsletter = { anyOf: ['newsletter'], named: 'newsletter' } as const;

type ListParams = { Params: { id: string } };
type SubParams = { Params: { id: string; sub_id: string } };

const tags = ['lists'];
const ListId = Type.Object({ id: Type.String({ description: 'a list id' }) });
const SubId = Type.Object({ id: Type.String({ description: 'a list id' }), sub_id: Type.String({ description: 'a subscriber id' }) });
const notFound = (what: string) => ({ 404: { description: `${what} not found`, ...ErrorBody } });
const invalid = (texts: string) => ({ 400: { description: texts, ...ErrorBody } });
const none = { description: 'no body', type: 'null' } as const;

export function listRoutes(app: FastifyInstance, service: Service): void {
  const ws = (req: Parameters<typeof principalOf>[0]) => principalOf(req).workspace;
  // Their requests are the service's to check (src/lists/fields.ts), with the spec's texts.
  const checked = { ...checkedByService };

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
      config: { scope: newsletter },
      ...checked,
      schema: {
        tags,
        summary: 'Create a list',
        body: ListFields,
        response: { 201: List, ...invalid('name is required; invalid body: ...'), ...authErrors },
      },
    },
    async (req, reply) => reply.code(201).send(await service.lists.create(ws(req), req.body)),
  );
  app.get<ListParams>(
    '/api/v2/lists/:id',
    {
      config: { scope: readOrNewsletter },
      schema: { tags, summary: 'One list', params: ListId, response: { 200: List, ...notFound('list'), ...authErrors } },
    },
    async (req) => service.lists.get(ws(req), req.params.id),
  );
  app.patch<ListParams>(
    '/api/v2/lists/:id',
    {
      config: { scope: newsletter },
      ...checked,
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
  app.delete<ListParams>(
    '/api/v2/lists/:id',
    {
      config: { scope: newsletter },
      schema: {
        tags,
        summary: 'Delete a list and its subscribers (irreversible)',
        params: ListId,
        response: { 204: none, ...notFound('list'), ...authErrors },
      },
    },
    async (req, reply) => {
      await service.lists.remove(ws(req), req.params.id);
      return reply.code(204).send();
    },
  );

  app.get<ListParams & { Querystring: Record<string, string> }>(
    '/api/v2/lists/:id/subscribers',
    {
      config: { scope: readOrNewsletter },
      ...checked,
      schema: {
        tags,
        summary: "A list's subscribers",
        params: ListId,
        querystring: Type.Object({
          status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('unsubscribed')])),
          limit: Type.Optional(Type.Integer({ minimum: 1 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        response: { 200: Page(Subscriber), ...invalid('invalid query: ...'), ...notFound('list'), ...authErrors },
      },
    },
    async (req) => service.lists.subscribers(ws(req), req.params.id, req.query),
  );
  app.post<ListParams>(
    '/api/v2/lists/:id/subscribers',
    {
      config: { scope: newsletter },
      ...checked,
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
  app.post<ListParams>(
    '/api/v2/lists/:id/subscribers/import',
    {
      config: { scope: newsletter },
      bodyLimit: IMPORT_BODY_LIMIT,
      ...checked,
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
  app.delete<SubParams>(
    '/api/v2/lists/:id/subscribers/:sub_id',
    {
      config: { scope: newsletter },
      schema: { tags, summary: 'Remove a subscriber', params: SubId, response: { 204: none, ...notFound('subscriber'), ...authErrors } },
    },
    async (req, reply) => {
      await service.lists.removeSubscriber(ws(req), req.params.id, req.params.sub_id);
      return reply.code(204).send();
    },
  );
  app.post<SubParams>(
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
