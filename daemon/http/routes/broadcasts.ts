// A broadcast to a list over REST (spec.md "Broadcast"): 202 with the broadcast result once its
// campaign is stored; the copies follow (src/broadcasts/fan-out.ts). Scope newsletter.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Service } from '../../../src/service.js';
import { principalOf } from '../auth.js';
import { BroadcastResult, ErrorBody, Unset, authErrors } from '../schemas.js';
import { broadcastInput } from '../../../src/broadcasts/broadcasts.js';

const newsletter = { anyOf: ['newsletter'], named: 'newsletter' } as const;

export function broadcastRoutes(app: FastifyInstance, service: Service): void {
  app.post<{ Params: { id: string } }>(
    '/api/v2/lists/:id/broadcast',
    {
      config: { scope: newsletter, explain: { body: broadcastInput } },
      schema: {
        tags: ['lists'],
        summary: 'Send one message to every active subscriber of a list (each copy with its unsubscribe link)',
        params: Type.Object({ id: Type.String({ description: 'a list id' }) }),
        body: Type.Object(
          {
            subject: Type.String(),
            body_html: Type.String(),
            body_text: Unset(Type.String({ description: 'made from the HTML when not given' })),
            preheader: Unset(Type.String()),
            from_name: Unset(Type.String({ description: "the list's by default" })),
            from_address: Unset(Type.String({ description: "the list's by default; required when the list has none" })),
          },
          { additionalProperties: true },
        ),
        response: {
          202: BroadcastResult,
          400: { description: 'subject and body_html required; from_address required (list has none); ...', ...ErrorBody },
          404: { description: 'list not found', ...ErrorBody },
          ...authErrors,
        },
      },
    },
    async (req, reply) => reply.code(202).send(await service.broadcasts.broadcast(principalOf(req).workspace, req.params.id, req.body)),
  );
}
