// Newsletter lists and subscribers over REST (spec.md "Lists", "Subscribers"). Reading takes read
// or newsletter (a 403 names newsletter); every other call takes newsletter.
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';

/** The import's body limit: a 10 MB CSV as a JSON string, with room for its escapes. */
export const IMPORT_BODY_LIMIT = 16 * 1024 * 1024;

const readOrNewsletter = { anyOf: ['read', 'newsletter'], named: 'newsletter' } as const;
const newsletter = { anyOf: ['newsletter'], named: 'newsletter' } as const;

type ListParams = { Params: { id: string } };
type SubParams = { Params: { id: string; sub_id: string } };

export function listRoutes(app: FastifyInstance, service: Service): void {
  const ws = (req: Parameters<typeof principalOf>[0]) => principalOf(req).workspace;

  app.get('/api/v2/lists', { config: { scope: readOrNewsletter } }, async (req) => ({ data: await service.lists.list(ws(req)) }));
  app.post('/api/v2/lists', { config: { scope: newsletter } }, async (req, reply) =>
    reply.code(201).send(await service.lists.create(ws(req), req.body)),
  );
  app.get<ListParams>('/api/v2/lists/:id', { config: { scope: readOrNewsletter } }, async (req) =>
    service.lists.get(ws(req), req.params.id),
  );
  app.patch<ListParams>('/api/v2/lists/:id', { config: { scope: newsletter } }, async (req) =>
    service.lists.update(ws(req), req.params.id, req.body),
  );
  app.delete<ListParams>('/api/v2/lists/:id', { config: { scope: newsletter } }, async (req, reply) => {
    await service.lists.remove(ws(req), req.params.id);
    return reply.code(204).send();
  });

  app.get<ListParams & { Querystring: Record<string, string> }>(
    '/api/v2/lists/:id/subscribers',
    { config: { scope: readOrNewsletter } },
    async (req) => service.lists.subscribers(ws(req), req.params.id, req.query),
  );
  app.post<ListParams>('/api/v2/lists/:id/subscribers', { config: { scope: newsletter } }, async (req, reply) =>
    reply.code(201).send(await service.lists.subscribe(ws(req), req.params.id, req.body)),
  );
  // A 10 MB CSV in a JSON string (quotes and newlines escaped) fits this route's own body limit.
  app.post<ListParams>(
    '/api/v2/lists/:id/subscribers/import',
    { config: { scope: newsletter }, bodyLimit: IMPORT_BODY_LIMIT },
    async (req) => service.lists.importBody(ws(req), req.params.id, req.body),
  );
  app.delete<SubParams>('/api/v2/lists/:id/subscribers/:sub_id', { config: { scope: newsletter } }, async (req, reply) => {
    await service.lists.removeSubscriber(ws(req), req.params.id, req.params.sub_id);
    return reply.code(204).send();
  });
  app.post<SubParams>('/api/v2/lists/:id/subscribers/:sub_id/unsubscribe', { config: { scope: newsletter } }, async (req) =>
    service.lists.unsubscribe(ws(req), req.params.id, req.params.sub_id),
  );
}
