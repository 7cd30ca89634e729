// A broadcast to a list over REST (spec.md "Broadcast"): 202 with the broadcast result once its
// campaign is stored; the copies follow (src/broadcasts/fan-out.ts). Scope newsletter.
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';

const newsletter = { anyOf: ['newsletter'], named: 'newsletter' } as const;

export function broadcastRoutes(app: FastifyInstance, service: Service): void {
  app.post<{ Params: { id: string } }>('/api/v2/lists/:id/broadcast', { config: { scope: newsletter } }, async (req, reply) =>
    reply.code(202).send(await service.broadcasts.broadcast(principalOf(req).workspace, req.params.id, req.body)),
  );
}
