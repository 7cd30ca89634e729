// The team inbox over REST (additions to spec.md, README "Team inbox API"): threads, items of the
// two folders, one item, a reply from the inbox, and deleting a received item. Reading takes read
// or send (a 403 names read); a reply or a delete takes send; a reply counts against the inbox
// sends per day (429 kind inbox_sends).
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';

const readOrSend = { anyOf: ['read', 'send'], named: 'read' } as const;

export function inboxRoutes(app: FastifyInstance, service: Service): void {
  app.get<{ Querystring: Record<string, string> }>('/api/v2/inbox/threads', { config: { scope: readOrSend } }, async (req) =>
    service.inbox.threads(principalOf(req).workspace, req.query),
  );

  app.get<{ Params: { id: string } }>('/api/v2/inbox/threads/:id', { config: { scope: readOrSend } }, async (req) =>
    service.inbox.thread(principalOf(req).workspace, req.params.id),
  );

  // Marking read or archived is team work on the inbox, as a reply is: it takes send.
  app.patch<{ Params: { id: string }; Body: { read?: unknown; archived?: unknown } }>(
    '/api/v2/inbox/threads/:id',
    { config: { scope: { anyOf: ['send'], named: 'send' } } },
    async (req) =>
      service.inbox.mark(principalOf(req).workspace, req.params.id, (req.body ?? {}) as { read?: unknown; archived?: unknown }),
  );

  app.get<{ Querystring: Record<string, string> }>('/api/v2/inbox/items', { config: { scope: readOrSend } }, async (req) =>
    service.inbox.list(principalOf(req).workspace, req.query),
  );

  app.get<{ Params: { id: string }; Querystring: Record<string, string> }>(
    '/api/v2/inbox/items/:id',
    { config: { scope: readOrSend } },
    async (req) => service.inbox.get(principalOf(req).workspace, req.params.id, { raw: req.query.raw === 'true' || req.query.raw === '1' }),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v2/inbox/items/:id',
    { config: { scope: { anyOf: ['send'], named: 'send' } } },
    async (req, reply) => {
      await service.inbox.remove(principalOf(req).workspace, req.params.id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string }; Body: { text?: unknown; html?: unknown; from?: unknown; to?: unknown } }>(
    '/api/v2/inbox/items/:id/reply',
    { config: { scope: { anyOf: ['send'], named: 'send' } } },
    async (req, reply) => {
      const principal = principalOf(req);
      const body = (req.body ?? {}) as { text?: unknown; html?: unknown; from?: unknown; to?: unknown };
      return reply.code(202).send(await service.inbox.reply(principal.workspace, req.params.id, body, principal.key));
    },
  );
}
