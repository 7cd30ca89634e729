// daemon/http/routes/: one file per group of REST routes.
//
// POST /api/v2/emails (scope send) and the message log (read or send; a 403 names read).
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';

const readOrSend = { anyOf: ['read', 'send'], named: 'read' } as const;

export function emailRoutes(app: FastifyInstance, service: Service): void {
  app.post('/api/v2/emails', { config: { scope: { anyOf: ['send'], named: 'send' } } }, async (req, reply) => {
    const key = req.headers['idempotency-key'];
    const principal = principalOf(req);
    const r = await service.sendJson(principal.workspace, req.body, Array.isArray(key) ? key[0] : key, principal.key);
    if (r.replayed) reply.header('Idempotent-Replayed', 'true');
    return reply.code(r.status).send(r.body);
  });

  app.get<{ Querystring: Record<string, string> }>('/api/v2/messages', { config: { scope: readOrSend } }, async (req) =>
    service.messages.list(principalOf(req).workspace, req.query),
  );

  app.get<{ Params: { id: string } }>('/api/v2/messages/:id', { config: { scope: readOrSend } }, async (req) =>
    service.messages.get(principalOf(req).workspace, req.params.id),
  );

  app.get<{ Params: { id: string } }>('/api/v2/messages/:id/events', { config: { scope: readOrSend } }, async (req) =>
    service.tracking.events(principalOf(req).workspace, req.params.id),
  );
}
